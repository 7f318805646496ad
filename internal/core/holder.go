package core

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
)

// CleanupTimeout bounds a clean-up, run on a context detached from the
// caller's: the undo of an acquire whose reply was lost, a release with a
// cancelled ctx, a waiter leaving its queue, a multi-lock giving back what
// a failed round took. A call waits for its clean-up this long at most
// (a waiter leaving its queue, only CleanupGrace: see Cleanup); one that
// the server does not answer in time goes on in the background (see
// Call), and if it fails, what it would have removed ends with its lease
// (but an undo, which is asked again: see Holder.undoLater).
const CleanupTimeout = 500 * time.Millisecond

// ReleaseWindow is how long a released token is remembered, so that a
// retried Unlock whose first reply was lost reports success.
const ReleaseWindow = 10 * time.Second

// Spec is what a lock kind supplies for one of its holds: the scripts and
// the arguments they take beyond the standard ones. Every script gets the
// same KEYS, but Renew may take fewer. Standard ARGV:
//
//	Acquire  hold, lease ms, attempt id, AcquireArgs…, the Attempt's own args…
//	         → {count, token} when held; {0, wait ms} when refused (-1: no
//	           bound, -2: try again at once); {code < 0, _} for Refused
//	Release  hold, token, unlock id, ReleaseWindow ms, ReleaseArgs…
//	         → remaining count (0: the hold ended), -1 when not there
//	Renew    hold, token, lease ms (0: verify a fixed lease, changing
//	         nothing) → 1 renewed (or there), 0 gone
//	Undo     hold, known token, known count, attempt id, UndoArgs… → 1
//	         undone, 0 not; an undo by attempt id (a shared owner id's)
//	         passes the attempt id as the token too, and count -1
//
// The attempt id is new for every Attempt: an acquire that finds its own id
// recorded on the hold (':a:' in the prelude's layout) was re-sent by the
// client after a lost reply, and answers again without counting twice.
// Scripts that find the name used by another kind reply with an error
// starting "WRONGKIND" and change nothing.
type Spec struct {
	// Config is the lock value's configuration.
	Config *Config
	// Hold is the hold's id in Redis (the owner id, or it with a suffix).
	Hold string
	// Keys are the KEYS of every script but Renew.
	Keys []string
	// RenewKeys are the KEYS of Renew; nil for Keys. A renewal that names
	// only keys the hold keeps can run while its Cluster slot moves to
	// another master, where a script naming a key that does not exist is
	// refused (TRYAGAIN) until the move ends.
	RenewKeys []string

	Acquire, Release, Renew, Undo *redis.Script

	AcquireArgs, ReleaseArgs, UndoArgs []any

	// Late, if not nil, is called in the background when the reply of an
	// acquire whose caller gave up (its ctx ended first) comes, for what
	// the kind must tidy beyond the hold (a fair lock's queue entry).
	Late func()

	// Refused turns an acquire's negative code into the error to return;
	// nil when the kind has none.
	Refused func(code int64) error

	// Read marks the read side of an rwlock, in the events it reports;
	// Quiet makes a holder that reports none (a RedLock's node parts).
	Read, Quiet bool

	// Timed marks a holder whose caller times what it acquired itself (a
	// RedLock's node parts, whose validity the RedLock works out): a
	// fresh hold answered after its lease would have run out is recorded
	// as any other, not given back.
	Timed bool

	// Op serialises the owner's acquires and releases so that the holder
	// stays in step with Redis; holders of one owner (an rwlock's read and
	// write holds) share it. Nil gives the holder its own.
	Op *Serial
}

// Holder is one lock value's side of one hold: what it holds, and the
// protocol that acquires and releases it.
type Holder struct {
	spec Spec
	cfg  *Config
	op   *Serial
	tr   *Tracer

	// hold and lease are spec.Hold and the lease in ms, the ARGV every
	// script takes, converted to any once rather than on every call.
	hold, lease any
	// acquireRunner and releaseRunner run spec's Acquire and Release
	// with its Keys.
	acquireRunner, releaseRunner *lua.Runner

	// Slot is the current hold, lost or not. Its mutex also guards the
	// hold's Count.
	Slot

	// pending is a hold a newer one replaced while an Unlock of it had an
	// unknown outcome: the next Release settles that Unlock, and only it.
	// Guarded by op.
	pending *Hold
	// background is the hold whose Unlock in doubt is being settled in
	// the background (see settleLater); nil when none. Guarded by op.
	background *Hold
	// endLater is the hold that settleTry ends itself once its outcome is
	// kept, so that whoever sees it ended finds that outcome (see end);
	// nil when none. Guarded by op.
	endLater *Hold
	// settled is the outcome of the Unlock in doubt that settleLater
	// settled, for the next Release to return; nil when none.
	settled atomic.Pointer[unlockOutcome]
	// ownerUnlockID is the unlock id of a release by owner (see
	// releaseOwner) whose outcome is unknown; empty when none. Guarded by
	// op.
	ownerUnlockID string
	// settling is closed when an acquire in doubt is settled (see
	// freeze); nil when none is. Until then nothing may change what r
	// knows of its hold. Set with op held.
	settling atomic.Pointer[chan struct{}]
	// late is closed when the reply of the last acquire whose caller gave
	// up has come and been dealt with (see AwaitLate); nil before any.
	late atomic.Pointer[chan struct{}]
}

// NewHolder returns the holder of spec.
func NewHolder(spec Spec) *Holder {
	r := &Holder{spec: spec, cfg: spec.Config, op: spec.Op, tr: NewTracer(spec.Config, spec.Read, spec.Quiet)}
	r.hold, r.lease = spec.Hold, spec.Config.TTL().Milliseconds()
	r.acquireRunner, r.releaseRunner = lua.NewRunner(spec.Acquire, spec.Keys), lua.NewRunner(spec.Release, spec.Keys)
	if r.op == nil {
		r.op = NewSerial()
	}
	return r
}

// AwaitLate waits until the reply of the last acquire whose caller gave
// up (its ctx ended first) has come and been dealt with, or until ctx
// ends: a kind's clean-up after a failed Lock (a fair waiter leaving its
// queue) then runs after whatever that acquire did. The caller must not
// hold Op.
func (r *Holder) AwaitLate(ctx context.Context) {
	if p := r.late.Load(); p != nil {
		select {
		case <-*p:
		case <-ctx.Done():
		}
	}
}

// Tracer returns the tracer of r's events.
func (r *Holder) Tracer() *Tracer { return r.tr }

// lose marks h lost with cause and reports it, once, with h.reporting
// held.
func (r *Holder) lose(h *Hold, cause error) {
	h.reporting.Lock()
	defer h.reporting.Unlock()
	if h.Lose(r.cfg.Name, cause) {
		r.tr.Lost(h)
	}
}

// Op returns what serialises the owner's calls.
func (r *Holder) Op() *Serial { return r.op }

// Detached returns a context that is not cancelled with ctx, bounded by
// CleanupTimeout, for clean-ups that must run after ctx ended.
func Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
}
