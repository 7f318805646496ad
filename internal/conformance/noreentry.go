package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// RunWithoutReentry runs, on every backend k names, the contract of a lock
// made with lockkit.WithoutReentry: its owner waits for its own hold as
// any other owner does, and the hold count never exceeds 1. (Run holds the
// rest of the contract, which the option does not change.)
func RunWithoutReentry(t *testing.T, k Kind) {
	backends := k.Backends
	if backends == nil {
		backends = redistest.Backends()
	}
	runCases(t, k, backends, []testCase{
		{"second_lock_by_the_owner_waits_until_unlock", testNoReentryWaits},
		{"owner_trylock_fails_and_ctx_deadline_matches_both_errors", testNoReentryDeadline},
		{"goroutines_sharing_one_value_exclude_each_other", testNoReentryHammer},
		{"values_sharing_an_owner_id_wait_for_each_other", testNoReentryWithOwner},
	})
}

// waitStarts returns an option that reports on the channel it returns
// every wait a Lock of the lock starts (lockkit.Trace.WaitStart).
func waitStarts() (lockkit.Option, <-chan struct{}) {
	ch := make(chan struct{}, 16)
	return lockkit.WithTrace(&lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}}), ch
}

// lockWaiting starts m.Lock in a goroutine, waits until it reports that it
// waits, checks that it has not returned, and returns the channel its
// error arrives on.
func lockWaiting(t *testing.T, m lockkit.Locker, started <-chan struct{}) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	go func() { got <- m.Lock(redistest.Ctx(t, waitTimeout)) }()
	redistest.Receive(t, started, waitTimeout, "the second Lock's wait")
	select {
	case err := <-got:
		t.Fatalf("second Lock by the owner returned %v while the owner held the lock; want a wait", err)
	default:
	}
	return got
}

func testNoReentryWaits(t *testing.T, e *env) {
	name := redistest.Unique(t)
	trace, started := waitStarts()
	m := e.lock(name, lockkit.WithoutReentry(), trace)
	redistest.MustLock(t, m)
	tok := token(m)
	got := lockWaiting(t, m, started)
	wantHoldCount(t, m, 1)
	if token(m) != tok {
		t.Fatalf("the waiting Lock changed the token %d -> %d", tok, token(m))
	}
	redistest.MustUnlock(t, m)
	if err := redistest.Receive(t, got, waitTimeout, "the second Lock"); err != nil {
		t.Fatalf("second Lock after Unlock: %v", err)
	}
	wantHoldCount(t, m, 1)
	if _, ok := m.(tokener); ok && token(m) <= tok {
		t.Fatalf("second Lock's token %d not above the first hold's %d: it re-entered", token(m), tok)
	}
	redistest.MustUnlock(t, m)
	wantHoldCount(t, m, 0)
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
}

func testNoReentryDeadline(t *testing.T, e *env) {
	name := redistest.Unique(t)
	m := e.lock(name, lockkit.WithoutReentry())
	redistest.MustLock(t, m)
	tok := token(m)
	if ok, err := m.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by the holder = %v, %v; want false", ok, err)
	}
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	redistest.WantErr(t, m.Lock(c), lockkit.ErrNotObtained, context.DeadlineExceeded)
	wantHoldCount(t, m, 1)
	if token(m) != tok {
		t.Fatalf("the failed Lock changed the token %d -> %d", tok, token(m))
	}
	if l, ok := m.(loser); ok {
		select {
		case <-l.Lost():
			t.Fatal("the failed Lock closed the hold's lost signal")
		default:
		}
	}
	// The hold is the one it was: one Unlock frees it.
	redistest.MustUnlock(t, m)
	wantHoldCount(t, m, 0)
	// Nothing of the failed wait is left: another owner gets the lock at
	// once.
	other := e.lock(name)
	if ok, err := other.TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by another owner after the failed wait = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, other)
}

// testNoReentryHammer checks that one lock value shared by goroutines is a
// mutex among them, as a sync.Mutex is.
func testNoReentryHammer(t *testing.T, e *env) {
	m := e.lock(redistest.Unique(t), lockkit.WithoutReentry())
	const G, N = 4, 8
	owners := make([]redistest.Locker, G)
	for i := range owners {
		owners[i] = m
	}
	hammer(t, owners, N)
	wantHoldCount(t, m, 0)
}

// testNoReentryWithOwner checks that values sharing an owner id, on two
// Clients as in two processes, are one non-reentrant owner.
func testNoReentryWithOwner(t *testing.T, e *env) {
	name := redistest.Unique(t)
	owner := lockkit.WithOwner("job-" + name)
	trace, started := waitStarts()
	a := e.lock(name, lockkit.WithoutReentry(), owner)
	b := e.k.New(redistest.Lockkit(t, e.newRC(t)), name, lockkit.WithoutReentry(), owner, trace)
	redistest.MustLock(t, a)
	if ok, err := b.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by a value of the holding owner = %v, %v; want false", ok, err)
	}
	got := lockWaiting(t, b, started)
	wantHoldCount(t, a, 1)
	redistest.MustUnlock(t, a)
	if err := redistest.Receive(t, got, waitTimeout, "the other value's Lock"); err != nil {
		t.Fatalf("Lock of the other value after Unlock: %v", err)
	}
	wantHoldCount(t, a, 1)
	if ok, err := a.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by the first value while the other holds = %v, %v; want false", ok, err)
	}
	redistest.MustUnlock(t, b)
	wantHoldCount(t, b, 0)
}
