package fair

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/place"
)

// wait is Lock's wait in the queue (see core.Wait and core.Queue): attempt
// (joining the queue), subscribe to the owner's own channel, attempt
// again, then sleep until woken, until the bound the last attempt returned
// (the holder's lease, the deadline of the waiter ahead) or until the
// heartbeat, and attempt again; every attempt renews the owner's place.
//
// Goroutines waiting as one owner, in one Mutex or in several of the
// Client with the owner's id, share one place in the queue. The last of
// them to give up takes it out (leave); the others keep it.
func (q *queue) wait(ctx context.Context, x *core.Exclusive) error {
	if err := ctx.Err(); err != nil {
		return core.NotObtained(x.Cfg.Name, err)
	}
	p := place.Enter(q.place)
	err := core.Wait(ctx, x.H.Tracer(), x.Cfg.Name, q.waiter, func(ctx context.Context, _ ...any) (ok bool, wait time.Duration, err error) {
		// Join the queue, or keep the owner's place there.
		p.Attempt(func() { ok, wait, err = x.H.Attempt(ctx, "lock", q.args(joinQueue)...) })
		return ok, wait, err
	})
	if err != nil {
		return q.leave(ctx, x, p, err)
	}
	p.Exit()
	return nil
}

// leave ends the wait of one goroutine counted in place p that failed with
// cause, and returns the error Lock returns: cause, joined with the
// clean-up's own failure if any. When no other goroutine waits in p, it
// takes the owner's entry out of the queue (leave.lua, see place.Leave),
// in the background if the server takes longer than core.CleanupGrace
// (see core.Cleanup). (A hold that an attempt with a lost reply may have
// taken was undone by the holder already.)
func (q *queue) leave(ctx context.Context, x *core.Exclusive, p *place.Place, cause error) error {
	err := core.Cleanup(ctx, x.Cfg.Client, func(ctx context.Context) error {
		// An attempt still on its way when ctx ended may put the entry
		// back: leave after it, if it comes in time (else leaveLate takes
		// the entry out when it does).
		x.H.AwaitLate(ctx)
		return p.Leave(q.leaveCall(ctx, x))
	})
	if err != nil {
		return errors.Join(cause, core.Op("leave queue", x.Cfg.Name, err))
	}
	return cause
}

// leaveLate takes the owner's entry out of the queue after an attempt
// whose caller gave up before its reply came: that attempt may have put
// the entry back after leave took it out, and a dead entry would hold up
// the waiters behind it until its waiter timeout. Only when no goroutine
// waits as the owner.
func (q *queue) leaveLate(x *core.Exclusive) {
	ctx, cancel := core.Detached(context.Background())
	defer cancel()
	// If this fails too, the entry ends with its waiter timeout.
	_ = place.Idle(q.place, q.leaveCall(ctx, x))
}

// leaveCall returns the run of leave.lua for the owner, within ctx, with the
// owner's calls serialised (Holder.Op), so that no attempt of the owner's
// Mutex outside its wait (a TryLock, say) runs while the owner's entry is
// taken out either.
func (q *queue) leaveCall(ctx context.Context, x *core.Exclusive) func() error {
	return func() error {
		op := x.H.Op()
		if err := op.Lock(ctx); err != nil {
			return err
		}
		defer op.Unlock()
		_, err := core.Call(ctx, x.Cfg.Client, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, leaveScript.Run(ctx, x.Cfg.Client.Redis(), q.keys, x.Cfg.Owner, q.chans).Err()
		}, nil)
		return err
	}
}
