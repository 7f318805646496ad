package fair

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit/internal/core"
)

// wait is Lock's wait in the queue (see core.Wait and core.Queue): attempt
// (joining the queue), subscribe to m's own channel, attempt again, then
// sleep until woken, until the bound the last attempt returned (the
// holder's lease, the deadline of the waiter ahead) or until the
// heartbeat, and attempt again; every attempt renews m's place.
//
// Goroutines waiting as m share one place in the queue. The last of them
// to give up takes it out (leave); the others keep it.
func (m *Mutex) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return core.NotObtained(m.x.Cfg.Name, err)
	}
	m.mu.Lock()
	m.waiting++
	m.mu.Unlock()
	err := core.Wait(ctx, m.x.Cfg.Name, m.waiter, m.attempt)
	if err != nil {
		return m.leave(ctx, err)
	}
	m.doneWaiting()
	return nil
}

// attempt makes one try at the lock that joins the queue, or keeps m's
// place there, when the lock cannot be taken.
func (m *Mutex) attempt(ctx context.Context) (bool, time.Duration, error) {
	return m.x.H.Attempt(ctx, "lock", joinQueue)
}

// doneWaiting counts a goroutine out of the wait and reports whether it
// was the last one in.
func (m *Mutex) doneWaiting() (last bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.waiting--
	return m.waiting == 0
}

// leave ends one goroutine's wait that failed with cause, and returns the
// error Lock returns: cause, joined with the clean-up's own failure if
// any. When no other goroutine still waits as m, it takes m's entry out of
// the queue (leave.lua), on a detached context bounded by
// core.CleanupTimeout. (A hold that an attempt with a lost reply may have
// taken was undone by the holder already.) The owner's op mutex is held
// from the count to the clean-up, so that no attempt of a goroutine
// joining as m runs in between and then finds its entry gone.
func (m *Mutex) leave(ctx context.Context, cause error) error {
	op := m.x.H.Op()
	op.Lock()
	defer op.Unlock()
	if !m.doneWaiting() {
		return cause
	}
	ctx, cancel := core.Detached(ctx)
	defer cancel()
	if err := leaveScript.Run(ctx, m.x.Cfg.Client.Redis(), m.keys, m.x.Cfg.Owner, m.chans).Err(); err != nil {
		return errors.Join(cause, core.Op("leave queue", m.x.Cfg.Name, err))
	}
	return cause
}
