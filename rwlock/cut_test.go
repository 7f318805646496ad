package rwlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// The calls of both sides honour their ctx when the network to the server
// is cut or the server is down, with a go-redis client that would itself
// wait a minute for a reply and retry a failed dial for a minute.

// cutShort is the ctx of each call made while the server cannot answer.
const cutShort = 300 * time.Millisecond

// returnsWithin runs call with a ctx of cutShort and returns its error,
// failing the test if it is nil. A call that did not honour its ctx would
// be held for a minute, so the wait for it is bounded by redistest.Hang.
func returnsWithin(t *testing.T, what string, call func(context.Context) error) error {
	t.Helper()
	err := redistest.Receive(t, async(t, func() error { return call(redistest.Ctx(t, cutShort)) }), redistest.Hang, what)
	if err == nil {
		t.Errorf("%s while the server cannot answer = nil; want an error", what)
	}
	return err
}

// stateOf is State as a call that returns an error only.
func stateOf(m *rwlock.RWMutex) func(context.Context) error {
	return func(ctx context.Context) error { _, err := m.State(ctx); return err }
}

// TestCalls_return_within_ctx_when_the_network_to_the_server_is_cut checks
// both sides against a partition (a proxy that stops forwarding): an RLock
// behind a writer, a TryRLock, State and the writer's Unlock; then a Lock
// waiting behind a reader with its intent, and the reader's RUnlock. Each
// returns by its ctx, the waits with errors matching ErrNotObtained and
// the deadline; once the network heals, calling Unlock and RUnlock again
// settles the releases left behind, and what the waits left behind is
// undone or lapses, so that others get the lock.
func TestCalls_return_within_ctx_when_the_network_to_the_server_is_cut(t *testing.T) {
	srv := redistest.StartServer(t)
	p := redistest.StartProxy(t, srv.Addr())
	lc, direct := redistest.Lockkit(t, redistest.Patient(t, p.Addr())), redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	settle := func(what string, release func(context.Context) error) {
		t.Helper()
		redistest.Eventually(t, waitTimeout, what+" to settle", func() bool {
			return release(redistest.Ctx(t, time.Second)) == nil
		})
	}

	// A writer holds.
	wh, r := rwlock.New(lc, name), rwlock.New(lc, name)
	redistest.MustLock(t, wh)
	p.Cut()
	redistest.WantErr(t, returnsWithin(t, "RLock behind the writer", r.RLock), lockkit.ErrNotObtained, context.DeadlineExceeded)
	returnsWithin(t, "TryRLock", redistest.TryErr(r.TryRLock))
	returnsWithin(t, "State", stateOf(r))
	returnsWithin(t, "the writer's Unlock", wh.Unlock)
	p.Heal()
	settle("the writer's Unlock", wh.Unlock)
	redistest.Eventually(t, waitTimeout, "the reads left behind to be undone", func() bool {
		s, err := r.State(redistest.Ctx(t, waitTimeout))
		return err == nil && s.Mode == rwlock.Unlocked
	})
	wantWriterGets(t, direct, name)

	// A reader holds; a writer waits with an intent that lapses within a
	// second if its withdrawal cannot be made.
	rh, w := rwlock.New(lc, name), rwlock.New(lc, name, lockkit.WithWatchdogTimeout(time.Second))
	mustRLock(t, rh)
	p.Cut()
	redistest.WantErr(t, returnsWithin(t, "Lock behind the reader", w.Lock), lockkit.ErrNotObtained, context.DeadlineExceeded)
	returnsWithin(t, "the reader's RUnlock", rh.RUnlock)
	p.Heal()
	settle("the reader's RUnlock", rh.RUnlock)
	newcomer := eventuallyAdmitted(t, direct, name, "a new reader to get in")
	mustRUnlock(t, newcomer)
	redistest.WantErr(t, rh.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	redistest.WantErr(t, w.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
	wantWriterGets(t, direct, name)
}

// TestCalls_return_within_ctx_when_the_server_is_down checks every call of
// both sides while the server is stopped (each dial fails, and the client
// would retry it for a minute): each returns by its ctx. Once the server
// is back, empty, the reader learns from RUnlock that its hold is gone,
// and a writer gets the lock.
func TestCalls_return_within_ctx_when_the_server_is_down(t *testing.T) {
	srv := redistest.StartServer(t)
	lc := redistest.Lockkit(t, redistest.Patient(t, srv.Addr()))
	name := redistest.Unique(t)
	rh, other := rwlock.New(lc, name), rwlock.New(lc, name)
	mustRLock(t, rh) // the connections are open
	srv.Stop(t)
	for what, call := range map[string]func(context.Context) error{
		"the reader's re-entry": rh.RLock,
		"RLock":                 other.RLock,
		"TryRLock":              redistest.TryErr(other.TryRLock),
		"Lock":                  other.Lock,
		"TryLock":               func(ctx context.Context) error { _, err := other.TryLock(ctx); return err },
		"State":                 stateOf(other),
		"ForceUnlock":           func(ctx context.Context) error { _, err := other.ForceUnlock(ctx); return err },
		"the reader's RUnlock":  rh.RUnlock,
	} {
		returnsWithin(t, what, call)
	}
	srv.Restart(t)
	redistest.Eventually(t, waitTimeout, "the reader's RUnlock to report the loss", func() bool {
		return errors.Is(rh.RUnlock(redistest.Ctx(t, time.Second)), lockkit.ErrLost)
	})
	wantWriterGets(t, lc, name)
}
