package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// deadlineKinds are the kinds whose calls must honour their ctx against a
// server that is down or stalled.
var deadlineKinds = []struct {
	name string
	new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
}{
	{"reentrant", reentrant.New},
	{"spin", spin.New},
	{"fair", fair.New},
}

// returnsWithin checks that call, given a ctx of d, returns an error.
// The go-redis clients of these tests would hold a call that does not
// honour its ctx for a minute or more, so the wait for it is bounded by
// redistest.Hang, not by a time the call is expected to take.
func returnsWithin(t *testing.T, what string, d time.Duration, call func(context.Context) error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call(redistest.Ctx(t, d)) }()
	if err := redistest.Receive(t, done, redistest.Hang, what+" with a short ctx"); err == nil {
		t.Errorf("%s = nil; want an error", what)
	}
}

func TestCalls_return_within_ctx_when_the_server_is_down(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			s := redistest.StartServer(t)
			m := k.new(redistest.Lockkit(t, redistest.Patient(t, s.Addr())), redistest.Unique(t))
			redistest.MustLock(t, m) // the connections are open
			s.Stop(t)
			const d = 300 * time.Millisecond
			returnsWithin(t, "Unlock", d, m.Unlock)
			returnsWithin(t, "Lock", d, m.Lock)
			returnsWithin(t, "TryLock", d, redistest.TryErr(m.TryLock))
			returnsWithin(t, "IsLocked", d, func(c context.Context) error {
				_, err := m.IsLocked(c)
				return err
			})
			s.Restart(t) // the requests left behind, still retrying, end
		})
	}
}

// TestCalls_return_within_ctx_when_the_server_does_not_answer cuts the
// network to the server (through a proxy), as a stalled server or a
// partition does: the calls return within their ctx, and once the
// network heals what they left behind is settled.
func TestCalls_return_within_ctx_when_the_server_does_not_answer(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			p := redistest.StartProxy(t, redistest.StartServer(t).Addr())
			lc := redistest.Lockkit(t, redistest.Patient(t, p.Addr()))
			name := redistest.Unique(t)
			holder := k.new(lc, name)
			redistest.MustLock(t, holder)
			m := k.new(lc, name)
			callsReturnWithinACut(t, p, holder, m, m)
		})
	}
}

// callsReturnWithinACut cuts p while holder holds the lock and checks
// that a Lock of m, a TryLock of tryer and holder's Unlock each return
// within a short ctx; then healAndSettle settles what they left behind.
func callsReturnWithinACut(t *testing.T, p *redistest.Proxy, holder, m, tryer *reentrant.Mutex) {
	t.Helper()
	const d = 300 * time.Millisecond
	p.Cut()
	returnsWithin(t, "Lock", d, m.Lock)
	returnsWithin(t, "TryLock", d, redistest.TryErr(tryer.TryLock))
	returnsWithin(t, "Unlock", d, holder.Unlock)
	healAndSettle(t, p, holder, m)
}

// healAndSettle heals p and, once the server answers again, settles the
// Unlock of holder left behind by calling it again; m then gets the lock.
func healAndSettle(t *testing.T, p *redistest.Proxy, holder redistest.Locker, m redistest.NamedLocker) {
	t.Helper()
	p.Heal()
	redistest.Eventually(t, 10*time.Second, "the holder's Unlock to settle", func() bool {
		return holder.Unlock(redistest.Ctx(t, time.Second)) == nil
	})
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
}
