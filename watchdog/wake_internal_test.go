package watchdog

import (
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// TestStart_and_Stop_wake_the_goroutine_only_when_due_sooner checks that
// a hold taken and released while the goroutine sleeps until an earlier
// time costs it no look at the holds, and that a hold due sooner than
// that still wakes it.
func TestStart_and_Stop_wake_the_goroutine_only_when_due_sooner(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { _ = c.Close() })
	w := New(c)
	t.Cleanup(func() { _ = w.Close() })
	renew := redis.NewScript(`return 1`)
	start := func(ttl time.Duration, lost func(error)) *Hold {
		h := w.Register()
		h.Start(Lease{Script: renew, Keys: []string{"k"}, TTL: ttl, OnLost: lost}, time.Now())
		return h
	}
	state := func() (rounds uint64, next time.Time) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.rounds, w.next
	}
	first := start(time.Minute, func(err error) { t.Errorf("first hold lost: %v", err) })
	defer first.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, next := state(); !next.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the goroutine did not look at the first hold")
		}
		time.Sleep(time.Millisecond)
	}
	before, _ := state()
	for range 1000 {
		start(time.Minute, nil).Stop()
	}
	if after, _ := state(); after != before {
		t.Errorf("1000 holds due after the first one made the goroutine look %d times, want 0", after-before)
	}

	// A hold due sooner than the first one's renewal is renewed in time.
	lost := make(chan error, 1)
	short := start(300*time.Millisecond, func(err error) { lost <- err })
	defer short.Stop()
	select {
	case err := <-lost:
		t.Fatalf("a hold due before the goroutine's next look was not renewed: %v", err)
	case <-time.After(time.Second):
	}
}
