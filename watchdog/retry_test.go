package watchdog_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// nextRound returns the first round sent to rounds that matches want, and
// fails the test if none comes within redistest.Hang.
func nextRound(t *testing.T, rounds <-chan watchdog.Round, what string, want func(watchdog.Round) bool) watchdog.Round {
	t.Helper()
	for {
		if r := redistest.Receive(t, rounds, redistest.Hang, what); want(r) {
			return r
		}
	}
}

// TestWatchdog_retries_through_a_cut_and_keeps_the_hold checks the
// promise that a failed renewal is retried until the deadline: with the
// network to the server cut, the renewals fail (each round reports the
// error); once it is healed well within the lease, a retry renews the
// lease, and the hold is never reported lost.
func TestWatchdog_retries_through_a_cut_and_keeps_the_hold(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	// A short read timeout, so that a renewal through the cut fails soon.
	c := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ReadTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	w, rounds := roundsWatchdog(t, c, 256)
	const ttl = 20 * time.Second // retried every second, lost after about 20
	_, _, lost := watchedKey(t, c, w, ttl)

	proxy.Cut()
	w.Check() // renew now rather than in ttl/3
	failed := nextRound(t, rounds, "a renewal to fail through the cut", func(r watchdog.Round) bool { return r.Retry == 1 })
	if failed.Err == nil {
		t.Fatalf("a round with a failed renewal reports no error: %+v", failed)
	}
	proxy.Heal()
	nextRound(t, rounds, "a retry to renew the hold after the heal", func(r watchdog.Round) bool { return r.Renewed == 1 })
	redistest.NotYet(t, lost, "the hold was reported lost though a retry renewed it within its lease")
	if w.Len() != 1 {
		t.Fatalf("Len = %d after the retry renewed the hold, want 1", w.Len())
	}
}

// TestWatchdog_retries_a_renewal_refused_at_once_every_TTL_over_10: a
// renewal the server refuses at once (an error reply, as a BUSY server
// gives) is retried every TTL/10 until the deadline, not again and again:
// about ten round trips before the hold is reported lost, not hundreds.
func TestWatchdog_retries_a_renewal_refused_at_once_every_TTL_over_10(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	var rounds atomic.Int64
	w := watchdog.New(c, watchdog.OnRound(func(watchdog.Round) { rounds.Add(1) }))
	t.Cleanup(func() { _ = w.Close() })
	const ttl = time.Second
	lost := make(chan error, 1)
	h := w.Register()
	t.Cleanup(h.Stop)
	h.Start(watchdog.Lease{
		Script: redis.NewScript(`return redis.error_reply('BUSY refused')`),
		Keys:   []string{redistest.Unique(t)},
		TTL:    ttl,
		OnLost: func(err error) { lost <- err },
	}, time.Now())
	w.Check() // the first renewal now, rather than in ttl/3
	err := redistest.Receive(t, lost, redistest.Hang, "the hold to be reported lost")
	if !errors.Is(err, watchdog.ErrNotRenewed) {
		t.Fatalf("lost with %v; want ErrNotRenewed", err)
	}
	// One round a retry, every ttl/10 until the deadline, and the first.
	if n := rounds.Load(); n > 2*int64(ttl/(ttl/10)) {
		t.Fatalf("%d renewal rounds within one lease; want about %d, one each ttl/10", n, ttl/(ttl/10))
	}
}
