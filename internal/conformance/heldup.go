package conformance

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// heldUpOwners are the owner options the held-up acquire tests run with:
// an owner id of the value's own, and one values share (WithOwner), whose
// undo goes by attempt id.
func heldUpOwners(t *testing.T) map[string][]lockkit.Option {
	return map[string][]lockkit.Option{
		"own_owner":    nil,
		"shared_owner": {lockkit.WithOwner("job-" + redistest.Unique(t))},
	}
}

// heldUpLock returns a lock of a new name whose first acquire, once armed,
// the returned hook holds up (see redistest.HoldUp), with the hooks after
// it on its client. The kind's scripts are loaded first, by another owner
// that takes and frees the lock, returned too: the acquire held up is sent
// as EVALSHA.
func heldUpLock(t *testing.T, e *env, opts []lockkit.Option, after ...redis.Hook) (m, other lockkit.Locker, name string, held *redistest.HoldUp) {
	t.Helper()
	name = redistest.Unique(t)
	other = e.lock(name)
	redistest.MustLock(t, other)
	redistest.MustUnlock(t, other)
	held = &redistest.HoldUp{Match: redistest.IsScript}
	m = e.k.New(redistest.Lockkit(t, e.newRC(t, append([]redis.Hook{held}, after...)...)), name, opts...)
	held.Arm()
	if ok, err := m.TryLock(ctx(t)); ok || err == nil {
		t.Fatalf("TryLock whose acquire was held up = %v, %v; want an error", ok, err)
	}
	return m, other, name, held
}

// testAcquireHeldUp holds an acquire up in the network past its undo: the
// caller took its reply for lost and undid it (TryLock returns once the
// undo is done) before the acquire reached the server. When it comes, it
// does nothing: another owner takes the lock at once, not a lease later.
func testAcquireHeldUp(t *testing.T, e *env) {
	for how, opts := range heldUpOwners(t) {
		t.Run(how, func(t *testing.T) {
			m, other, _, held := heldUpLock(t, e, opts)
			if err := held.Deliver(ctx(t)); err != nil {
				t.Fatalf("delivering the acquire held up: %v", err)
			}
			if ok, err := other.TryLock(ctx(t)); !ok || err != nil {
				t.Fatalf("TryLock by another owner = %v, %v; want true (the acquire held up took the lock)", ok, err)
			}
			redistest.MustUnlock(t, other)
			redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
		})
	}
}

// testAcquireHeldUpUndoUnanswered holds an acquire up in the network and
// fails the undo that follows (not sent): the undo is asked again in the
// background, and whether the acquire comes before or after it, another
// owner takes the lock within moments, not a lease later.
func testAcquireHeldUpUndoUnanswered(t *testing.T, e *env) {
	for how, opts := range heldUpOwners(t) {
		t.Run(how, func(t *testing.T) {
			refused := &redistest.RefuseSend{Match: redistest.IsScript}
			refused.Arm() // the acquire never reaches it: the undo is the next script
			m, _, name, held := heldUpLock(t, e, opts, refused)
			if refused.Armed() {
				t.Fatalf("the undo of the acquire held up was not sent")
			}
			if err := held.Deliver(ctx(t)); err != nil {
				t.Fatalf("delivering the acquire held up: %v", err)
			}
			eventuallyTaken(t, e, name)
			redistest.WantErr(t, m.Unlock(ctx(t)), lockkit.ErrNotHeld)
		})
	}
}
