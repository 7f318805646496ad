package conformance

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func testReenter(t *testing.T, e *env) {
	name := redistest.Unique(t)
	m := e.lock(name)
	redistest.MustLock(t, m)
	tok := token(m)
	redistest.MustLock(t, m)
	if ok, err := m.TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by the holder = %v, %v; want re-entry", ok, err)
	}
	wantHoldCount(t, m, 3)
	if token(m) != tok {
		t.Fatalf("re-entry changed the token %d -> %d", tok, token(m))
	}
	redistest.MustUnlock(t, m)
	redistest.MustUnlock(t, m)
	wantHoldCount(t, m, 1)
	other := e.lock(name)
	if ok, err := other.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by another owner while held once = %v, %v; want false", ok, err)
	}
	redistest.MustUnlock(t, m)
	wantHoldCount(t, m, 0)
	if token(m) != 0 {
		t.Fatalf("Token after the last Unlock = %d, want 0", token(m))
	}
	redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
	if ok, err := other.TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock by another owner after the last Unlock = %v, %v; want true", ok, err)
	}
	redistest.MustUnlock(t, other)
}

func testOtherOwner(t *testing.T, e *env) {
	_, a, b := e.contended(t)
	if ok, err := b.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by another owner = %v, %v; want false", ok, err)
	}
	err := b.Unlock(ctx(t))
	if !errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Unlock by another owner = %v, want ErrNotHeld only", err)
	}
	wantHoldCount(t, a, 1)
	wantHoldCount(t, b, 0)
	redistest.MustUnlock(t, a)
}

func testWaiter(t *testing.T, e *env) {
	_, a, b := e.contended(t)
	got := make(chan error, 1)
	go func() { got <- b.Lock(redistest.Ctx(t, waitTimeout)) }()
	redistest.MustUnlock(t, a)
	if err := redistest.Receive(t, got, waitTimeout, "the waiter's Lock"); err != nil {
		t.Fatalf("waiter's Lock: %v", err)
	}
	if ok, err := a.TryLock(ctx(t)); ok || err != nil {
		t.Fatalf("TryLock by the first owner while the waiter holds = %v, %v; want false", ok, err)
	}
	redistest.MustUnlock(t, b)
}

func testHammer(t *testing.T, e *env) {
	name := redistest.Unique(t)
	const G, N = 6, 10
	owners := make([]redistest.Locker, G)
	for i := range owners {
		owners[i] = e.lock(name)
	}
	hammer(t, owners, N)
}

// testClients checks exclusion between owners made from different Clients
// of one Redis, as in different processes.
func testClients(t *testing.T, e *env) {
	name := redistest.Unique(t)
	const G, N = 4, 8
	owners := make([]redistest.Locker, G)
	for i := range owners {
		owners[i] = e.k.New(redistest.Lockkit(t, e.newRC(t)), name)
	}
	hammer(t, owners, N)
}

func testToken(t *testing.T, e *env) {
	if _, ok := e.lock("x").(tokener); !ok {
		return // no fencing token: nothing to check
	}
	name := redistest.Unique(t)
	var last int64
	for i := range 4 {
		// Alternate Clients: tokens are per name, not per Client.
		lc := e.lc
		if i%2 == 1 {
			lc = redistest.Lockkit(t, e.newRC(t))
		}
		m := e.k.New(lc, name)
		redistest.MustLock(t, m)
		if tok := token(m); tok <= last {
			t.Fatalf("hold %d: token %d not above %d", i, tok, last)
		} else {
			last = tok
		}
		redistest.MustUnlock(t, m)
	}
}
