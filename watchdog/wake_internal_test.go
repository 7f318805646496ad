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
	awaitLook(t, w)
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

// TestStop_of_the_last_hold_ends_the_goroutine_soon checks that the
// goroutine, which Stop does not wake, still exits soon after the last
// hold is stopped, though that hold's renewal is far off.
func TestStop_of_the_last_hold_ends_the_goroutine_soon(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
	t.Cleanup(func() { _ = c.Close() })
	w := New(c)
	t.Cleanup(func() { _ = w.Close() })
	h := w.Register()
	h.Start(Lease{Script: redis.NewScript(`return 1`), Keys: []string{"k"}, TTL: time.Minute}, time.Now())
	awaitLook(t, w)
	h.Stop()
	w.mu.Lock()
	exited := w.exited
	w.mu.Unlock()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the goroutine still runs 5 s after the last hold stopped")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		t.Error("running after the goroutine exited")
	}
}

// awaitLook waits until the goroutine of w has looked at its holds and
// sleeps until a time.
func awaitLook(t *testing.T, w *Watchdog) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w.mu.Lock()
		looked := !w.next.IsZero()
		w.mu.Unlock()
		if looked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the goroutine did not look at the holds")
		}
		time.Sleep(time.Millisecond) // polling the goroutine's state
	}
}
