package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// within runs call with a ctx of d against a server that does not answer
// (see testSilentServer) and checks that it returns an error matching
// want (any error when want is nil). The silence holds a call that does
// not honour its ctx for twice redistest.Hang, so the wait for it is
// bounded by Hang, not by a time the call is expected to take.
func within(t *testing.T, what string, d time.Duration, want error, call func(context.Context) error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call(redistest.Ctx(t, d)) }()
	err := redistest.Receive(t, done, redistest.Hang, what+" against a silent server")
	if want == nil && err == nil {
		t.Errorf("%s against a silent server = nil; want an error", what)
	}
	if want != nil {
		redistest.WantErr(t, err, want)
	}
}

// testSilentServer checks that Lock, TryLock and Unlock return within
// their ctx deadline while the server does not answer, and that what the
// requests left behind did when the server answered at last is undone:
// the lock is free at once, and the holder can still release.
func testSilentServer(t *testing.T, e *env) {
	name := redistest.Unique(t)
	silent := &redistest.Silence{Match: redistest.IsScript, Max: 2 * redistest.Hang}
	defer silent.Off()
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, silent)), name)

	silent.On()
	const d = 100 * time.Millisecond
	start := time.Now()
	within(t, "Lock", d, lockkit.ErrNotObtained, m.Lock)
	// The clean-up of the wait (a fair waiter leaving its queue, say) is
	// waited for CleanupGrace at most; it goes on in the background.
	// (The bound is loose, against a loaded machine: a Lock that waited
	// for the clean-up's own bound would take CleanupTimeout more.)
	if took := time.Since(start); took >= d+core.CleanupTimeout {
		t.Errorf("Lock against a silent server took %v with a ctx of %v; want less than %v", took, d, d+core.CleanupTimeout)
	}
	// TryLock may fail sooner: RedLock's node timeout, say.
	within(t, "TryLock", d, nil, func(c context.Context) error {
		ok, err := m.TryLock(c)
		if ok {
			t.Error("TryLock against a silent server = true")
		}
		return err
	})
	silent.Off()
	// The acquires ran late and were undone: m holds nothing, and another
	// owner gets the lock without waiting for a lease.
	if hc, ok := m.(counter); ok {
		redistest.Eventually(t, waitTimeout, "the late acquires to be undone", func() bool {
			n, err := hc.HoldCount(ctx(t))
			return n == 0 && err == nil
		})
	}
	eventuallyTaken(t, e, name)

	redistest.MustLock(t, m)
	silent.On()
	within(t, "Unlock", d, context.DeadlineExceeded, m.Unlock)
	silent.Off()
	// The release ran late; calling Unlock again settles it.
	redistest.MustUnlock(t, m)
	eventuallyTaken(t, e, name)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}

// testQueuedBehindSilence checks that a call waiting for another call of
// the same value, held up by a silent server, still returns within its
// own ctx: the owner's calls are serialised, but not past a caller's
// deadline.
func testQueuedBehindSilence(t *testing.T, e *env) {
	name := redistest.Unique(t)
	silent := &redistest.Silence{Match: redistest.IsScript, Max: 2 * redistest.Hang}
	defer silent.Off()
	m := e.k.New(redistest.Lockkit(t, e.newRC(t, silent)), name)
	redistest.MustLock(t, m)

	silent.On()
	first := make(chan error, 1)
	go func() { first <- m.Unlock(redistest.Ctx(t, redistest.Hang)) }()
	redistest.Eventually(t, waitTimeout, "the first Unlock to be held up", func() bool {
		return silent.Held() > 0
	})
	const d = 100 * time.Millisecond
	within(t, "Unlock behind a held-up Unlock", d, nil, m.Unlock)
	// TryLock may say the lock is busy without an error (a cohort's
	// in-memory hold, say): only that it returns, and not with the lock.
	tried := make(chan bool, 1)
	go func() {
		ok, _ := m.TryLock(redistest.Ctx(t, d))
		tried <- ok
	}()
	if redistest.Receive(t, tried, redistest.Hang, "TryLock behind a held-up Unlock") {
		t.Error("TryLock behind a held-up Unlock = true")
	}
	silent.Off()
	if err := redistest.Receive(t, first, redistest.Hang, "the held-up Unlock"); err != nil {
		// It gave up before the server answered (RedLock's node timeout):
		// calling Unlock again settles it.
		redistest.MustUnlock(t, m)
	}
	eventuallyTaken(t, e, name)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}
