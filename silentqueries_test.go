package lockkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestQueries_return_within_ctx_against_a_silent_server checks the
// promise that every call returns within its ctx deadline, even against
// a server that stopped answering and a go-redis client without
// ContextTimeoutEnabled, for the calls beside Lock, TryLock and Unlock:
// the queries and ForceUnlock of the hash locks and of an rwlock. Once
// the server answers again, the locks are as they were: the holds stand.
func TestQueries_return_within_ctx_against_a_silent_server(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t) // ContextTimeoutEnabled off: go-redis waits on the socket
	silent := &redistest.Silence{Max: 2 * redistest.Hang}
	t.Cleanup(silent.Off)
	rc.AddHook(silent)
	lc := redistest.Lockkit(t, rc, lockkit.WithWatchdogTimeout(time.Second))
	name := redistest.Unique(t)
	calls := map[string]func(context.Context) error{}
	var held []*reentrant.Mutex
	for _, k := range []struct {
		kind string
		new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
	}{{"reentrant", reentrant.New}, {"fair", fair.New}, {"spin", spin.New}} {
		m := k.new(lc, name+"-"+k.kind)
		redistest.MustLock(t, m)
		held = append(held, m)
		calls[k.kind+" HoldCount"] = func(c context.Context) error { _, err := m.HoldCount(c); return err }
		calls[k.kind+" IsLocked"] = func(c context.Context) error { _, err := m.IsLocked(c); return err }
		calls[k.kind+" TTL"] = func(c context.Context) error { _, err := m.TTL(c); return err }
		calls[k.kind+" ForceUnlock"] = func(c context.Context) error { _, err := k.new(lc, m.Name()).ForceUnlock(c); return err }
	}
	rw := rwlock.New(lc, name+"-rw")
	if err := rw.RLock(redistest.Ctx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	calls["rwlock HoldCount"] = func(c context.Context) error { _, err := rw.HoldCount(c); return err }
	calls["rwlock RHoldCount"] = func(c context.Context) error { _, err := rw.RHoldCount(c); return err }
	calls["rwlock IsLocked"] = func(c context.Context) error { _, err := rw.IsLocked(c); return err }
	calls["rwlock TTL"] = func(c context.Context) error { _, err := rw.TTL(c); return err }
	calls["rwlock Mode"] = func(c context.Context) error { _, err := rw.Mode(c); return err }
	calls["rwlock State"] = func(c context.Context) error { _, err := rw.State(c); return err }
	calls["rwlock Readers"] = func(c context.Context) error { _, err := rw.Readers(c); return err }
	calls["rwlock ForceUnlock"] = func(c context.Context) error { _, err := rwlock.New(lc, rw.Name()).ForceUnlock(c); return err }

	silent.On()
	redistest.WantDeadlines(t, 100*time.Millisecond, calls)
	if silent.Held() == 0 {
		t.Fatal("no call was held up by the silent server")
	}
	silent.Off()

	// The ForceUnlocks left behind ran late, and freed the locks; their
	// holders are told.
	for _, m := range held {
		redistest.Receive(t, m.Lost(), redistest.Hang, m.Name()+"'s lost signal after the late ForceUnlock")
	}
	redistest.Receive(t, rw.RLost(), redistest.Hang, "the reader's lost signal after the late ForceUnlock")
}
