package watchdog_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// lateReplies is a go-redis hook that, while on, holds up the replies of
// pipelines: each runs on the server at once, and its sender gets the
// reply only once release is closed, as when replies are slow to come
// back.
type lateReplies struct {
	on      atomic.Bool
	held    atomic.Int64 // replies held up now
	release chan struct{}
}

func (l *lateReplies) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (l *lateReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (l *lateReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if l.on.Load() {
			l.held.Add(1)
			<-l.release
			l.held.Add(-1)
		}
		return err
	}
}

// TestSuspend_ignores_a_reply_in_flight_that_finds_the_hold_gone checks
// Suspend's promise for a renewal in flight: Suspend returns without
// waiting for it, and its reply, when it finds the hold gone (as after the
// release an Unlock sends once it suspended the hold), is ignored: the
// hold is not reported lost while suspended. Once resumed (the release
// failed), the hold is renewed again, found gone, and reported lost with
// a nil cause.
func TestSuspend_ignores_a_reply_in_flight_that_finds_the_hold_gone(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	late := &lateReplies{release: make(chan struct{})}
	c.AddHook(late)
	w, rounds := roundsWatchdog(t, c, 16)
	const ttl = 30 * time.Second // no renewal falls due by itself
	h, key, lost := watchedKey(t, c, w, ttl)

	if err := c.Del(redistest.Ctx(t, 5*time.Second), key).Err(); err != nil {
		t.Fatal(err)
	}
	late.on.Store(true)
	w.Check()
	redistest.Eventually(t, 5*time.Second, "the renewal's reply to be held up", func() bool { return late.held.Load() == 1 })
	h.Suspend() // returns with the renewal in flight
	if late.held.Load() != 1 {
		t.Fatal("the renewal returned before Suspend did")
	}
	late.on.Store(false)
	close(late.release)
	r := redistest.Receive(t, rounds, redistest.Hang, "the round of the suspended hold")
	if r.Gone != 1 {
		t.Fatalf("round of the suspended hold: %+v, want Gone 1", r)
	}
	redistest.NotYet(t, lost, "a suspended hold was reported lost by a reply that found it gone")
	if w.Len() != 1 {
		t.Fatalf("Len = %d with the hold suspended, want 1", w.Len())
	}

	h.Resume()
	if cause := redistest.Receive(t, lost, redistest.Hang, "the resumed hold to be found gone"); cause != nil {
		t.Fatalf("OnLost cause = %v, want nil: the hold is gone", cause)
	}
}
