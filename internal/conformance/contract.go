package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func ctx(t testing.TB) context.Context { return redistest.Ctx(t, callTimeout) }

func wantHoldCount(t testing.TB, l lockkit.Locker, want int) {
	t.Helper()
	if c, ok := l.(counter); ok {
		redistest.WantHoldCount(t, c, want)
	}
}

func token(l lockkit.Locker) int64 {
	if tk, ok := l.(tokener); ok {
		return tk.Token()
	}
	return 0
}

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
	name := redistest.Unique(t)
	a, b := e.lock(name), e.lock(name)
	redistest.MustLock(t, a)
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
	name := redistest.Unique(t)
	a, b := e.lock(name), e.lock(name)
	redistest.MustLock(t, a)
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

// hammer runs rounds Lock–Unlock rounds on each of owners at once and
// checks that no two held the lock together and every round got it.
func hammer(t *testing.T, owners []redistest.Locker, rounds int) {
	t.Helper()
	total, err := redistest.Hammer(redistest.Ctx(t, 60*time.Second), owners, rounds)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(owners) * rounds; total != want {
		t.Fatalf("%d acquisitions, want %d", total, want)
	}
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

func testDeadline(t *testing.T, e *env) {
	name := redistest.Unique(t)
	a, b := e.lock(name), e.lock(name)
	redistest.MustLock(t, a)
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := b.Lock(c)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	redistest.WantErr(t, b.Unlock(ctx(t)), lockkit.ErrNotHeld)
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	redistest.WantErr(t, b.Lock(done), lockkit.ErrNotObtained, context.Canceled)
	redistest.MustUnlock(t, a)
	// Nothing of b's failed waits is left: a third owner gets the lock at
	// once.
	if ok, err := e.lock(name).TryLock(ctx(t)); !ok || err != nil {
		t.Fatalf("TryLock after the failed waits = %v, %v; want true", ok, err)
	}
}

// testShortDeadlines checks that a Lock whose ctx lasts only a few ms
// always fails as a wait that ran out, never with the error of a command
// the deadline cut short (a subscribe, say).
func testShortDeadlines(t *testing.T, e *env) {
	name := redistest.Unique(t)
	a, b := e.lock(name), e.lock(name)
	redistest.MustLock(t, a)
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

// testOddNames checks that any name works on every backend: braces (which
// would otherwise cut the Cluster hash tag short), binary bytes, and the
// longest name allowed.
func testOddNames(t *testing.T, e *env) {
	base := redistest.Unique(t)
	for _, name := range []string{"}" + base, "{" + base + "}", base + "}{", "%7D" + base, base + "\x00\xff", base + strings.Repeat("n", 1000-len(base))} {
		a, b := e.lock(name), e.lock(name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("name %q: TryLock by another owner = %v, %v; want false", name, ok, err)
		}
		redistest.MustUnlock(t, a)
		if ok, err := b.TryLock(ctx(t)); !ok || err != nil {
			t.Fatalf("name %q: TryLock after Unlock = %v, %v; want true", name, ok, err)
		}
		redistest.MustUnlock(t, b)
	}
}
