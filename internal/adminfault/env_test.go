package adminfault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lease is the watchdog timeout of every hold, which renews it every
// lease/3, but for the tests that give their own (see forEachKindLease).
const lease = time.Second

// callBound bounds a call expected to succeed: reaching it means a hang.
const callBound = faultkit.CallBound

// env is the set-up of one kind's test: its servers, a go-redis client of
// each for the administration, two sides that lock (two processes, as far
// as the locks can tell), and a fresh lock name.
type env struct{ *faultkit.Env }

// forEachKind runs test for every kind as a subtest, on servers started for
// it, with the watchdog timeout lease.
func forEachKind(t *testing.T, test func(t *testing.T, e *env)) { forEachKindLease(t, lease, test) }

// forEachKindLease is forEachKind with the watchdog timeout d.
func forEachKindLease(t *testing.T, d time.Duration, test func(t *testing.T, e *env)) {
	for _, k := range kinds() {
		t.Run(k.Name, func(t *testing.T) { test(t, newEnv(t, k, d)) })
	}
}

// newEnv starts the servers of kind k and the rest of its env, whose
// Clients have the watchdog timeout d.
func newEnv(t *testing.T, k faultkit.Kind, d time.Duration) *env {
	t.Helper()
	return newEnvOn(t, k, d, redistest.StartMasters(t, k.Servers))
}

// newEnvOn is newEnv on servers, started already, as many as k spans.
func newEnvOn(t *testing.T, k faultkit.Kind, d time.Duration, servers []*redistest.Server) *env {
	t.Helper()
	return &env{faultkit.NewEnv(t, k, d, servers)}
}

// renewed waits until the watchdogs of side s have made n more round
// trips that renewed a lease.
func renewed(t *testing.T, s faultkit.Side, n int64) {
	t.Helper()
	target := s.Renewals.Load() + n
	redistest.Eventually(t, callBound, "watchdog round trips", func() bool { return s.Renewals.Load() >= target })
}

// reentered returns an owner of side A that holds e's lock, entered
// twice; it skips the test for the kinds whose owner's second Lock does
// not re-enter its hold (Kind.Once).
func (e *env) reentered(t *testing.T) faultkit.Owner {
	t.Helper()
	if e.K.Once {
		t.Skip("an owner's second Lock does not re-enter its hold")
	}
	o := e.Owner(e.A, 0)
	faultkit.MustLock(t, o)
	faultkit.MustLock(t, o)
	return o
}

// wantFree checks that the lock of o is free: a fresh owner of it on side
// s takes it at once, and gives it back.
func (e *env) wantFree(t *testing.T, s faultkit.Side, what string) {
	t.Helper()
	o := e.Owner(s, 9)
	ok, err := o.TryLock(redistest.Ctx(t, callBound))
	if !ok || err != nil {
		t.Fatalf("%s: TryLock of another owner = %v, %v; want the lock free", what, ok, err)
	}
	faultkit.MustUnlock(t, o)
}

// held has an owner of side A take e's lock, and returns it and the
// tokens of its hold.
func (e *env) held(t *testing.T) (faultkit.Owner, []int64) {
	t.Helper()
	holder := e.Owner(e.A, 0)
	faultkit.MustLock(t, holder)
	return holder, holder.Tokens()
}

// waiters starts the Locks of two owners of e's lock, bounded by
// redistest.Hang, while an owner of side A holds it: one beside the holder
// on side A and one on side B; it returns them once they wait (see
// faultkit.Env.WaitBeside).
func (e *env) waiters(t *testing.T) (w1, w2 faultkit.Waiter) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	return e.WaitBeside(t, ctx, e.A, 1), e.Wait(t, ctx, e.B, 2)
}

// serve waits for the waiters to take the lock, each within within of the
// one before, in whatever order: each Lock must return nil, and is
// unlocked once no other waiter's Lock was seen to return meanwhile.
func serve(t *testing.T, within time.Duration, ws ...faultkit.Waiter) {
	serveAfter(t, within, nil, ws...)
}

// serveAfter is serve that also checks that each waiter's hold has
// tokens larger than those of old, part by part (nil: no check).
func serveAfter(t *testing.T, within time.Duration, old []int64, ws ...faultkit.Waiter) {
	t.Helper()
	got := faultkit.Returns(ws)
	for range ws {
		r := faultkit.NextTaken(t, got, len(ws), within)
		if len(got) > 0 {
			t.Errorf("waiter %d's Lock returned while waiter %d held the lock", (<-got).I, r.I)
		}
		for p, tok := range ws[r.I].Tokens() {
			if old != nil && tok <= old[p] {
				t.Errorf("waiter %d's token %d of part %d is not larger than the lost hold's %d", r.I, tok, p, old[p])
			}
		}
		faultkit.MustUnlock(t, ws[r.I].Owner)
	}
}
