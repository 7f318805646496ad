package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func testDeadline(t *testing.T, e *env) {
	name, a, b := e.contended(t)
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := b.Lock(c)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	redistest.WantErr(t, b.Unlock(ctx(t)), lockkit.ErrNotHeld)
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	redistest.WantErr(t, b.Lock(done), lockkit.ErrNotObtained, context.Canceled)
	redistest.MustUnlock(t, a)
	// Nothing of b's failed waits is left: a third owner gets the lock well
	// within a waiter timeout (5 s), which is what a queue entry left
	// behind would keep it out for. Not at once: an attempt of b's still in
	// flight when its ctx ended may take the lock after a's Unlock, and is
	// undone when its reply comes, asynchronously.
	var last error
	redistest.Eventually(t, 2*time.Second, "a third owner's TryLock after the failed waits", func() bool {
		ok, err := e.lock(name).TryLock(ctx(t))
		last = err
		return ok && err == nil
	})
	if last != nil {
		t.Fatalf("TryLock after the failed waits: %v", last)
	}
}

// testShortDeadlines checks that a Lock whose ctx lasts only a few ms
// always fails as a wait that ran out, never with the error of a command
// the deadline cut short (a subscribe, say).
func testShortDeadlines(t *testing.T, e *env) {
	_, a, b := e.contended(t)
	for i := range 40 {
		c, cancel := context.WithTimeout(context.Background(), time.Duration(1+i%4)*time.Millisecond)
		err := b.Lock(c)
		cancel()
		if !errors.Is(err, lockkit.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock with a %v ctx = %v, want ErrNotObtained and DeadlineExceeded", time.Duration(1+i%4)*time.Millisecond, err)
		}
	}
	redistest.MustUnlock(t, a)
}
