package fair

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// Mutex is a reentrant lock on Redis that is handed out in the order
// callers started waiting for it, across goroutines and processes. Each
// Mutex is one owner: locking it again while it is held re-enters (the
// hold count grows by one), and any goroutine may Unlock it. Two Mutexes
// with the same name are two owners and exclude each other, in one process
// or many.
//
// A Mutex is safe for concurrent use. Use it through the pointer New
// returns; a zero Mutex is not usable (its methods return [lockkit.ErrInvalid]).
type Mutex struct {
	x      core.Exclusive
	waiter core.Queue
	keys   []string // the KEYS of every script
	chans  string   // prefix of the waiters' own channels, PREFIX:{NAME}:ch:

	mu      sync.Mutex // guards waiting
	waiting int        // goroutines inside Lock's wait; the last one out leaves the queue

	// contended is set when a Lock had to wait: the next one then
	// subscribes before its first attempt (see core.Queue).
	contended atomic.Bool
}

var _ lockkit.Locker = (*Mutex)(nil)

// New returns the fair lock name of client c for a new owner. It does no
// I/O and cannot fail: invalid arguments (a nil client, an empty name, a
// bad option) make every method return an error matching
// [lockkit.ErrInvalid]. A fair lock cannot share its name with a lock of
// another kind: the second finds the name used ([lockkit.ErrWrongKind]).
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *Mutex {
	m := &Mutex{x: core.Exclusive{Base: core.NewBase(c, config.Fair, name, opts)}}
	if m.x.Err != nil {
		return m
	}
	cfg := &m.x.Cfg
	k := cfg.Keys
	m.chans = k.Sub("ch") + ":"
	m.keys = []string{k.Base, k.Fence, k.Released, k.Sub("queue"), k.Sub("timeouts")}
	m.waiter = core.Queue{
		Notifier:  c.Notifier(),
		Channel:   m.chans + cfg.Owner,
		Heartbeat: cfg.WaiterTimeout / 3,
		Contended: &m.contended,
	}
	m.x.Force, m.x.ForceKeys, m.x.ForceArgs = forceScript, m.keys, []any{m.chans}
	m.x.H = core.NewHolder(core.Spec{
		Config:      cfg,
		Hold:        cfg.Owner,
		Keys:        m.keys,
		Acquire:     acquireScript,
		Release:     releaseScript,
		Renew:       renewScript,
		Undo:        undoScript,
		AcquireArgs: []any{cfg.WaiterTimeout.Milliseconds(), m.chans},
		ReleaseArgs: []any{m.chans},
		UndoArgs:    []any{m.chans},
	})
	return m
}

// Lock locks m. If the lock is held by another owner or others are already
// waiting for it, m joins the end of the queue and Lock blocks until every
// waiter ahead of it has had its turn and the lock is free, or until ctx
// ends. If m holds the lock already, Lock re-enters at once, past the
// queue.
//
// While it waits, Lock renews m's place in the queue every third of the
// waiter timeout ([WithWaiterTimeout]); the release that makes m first in
// line wakes it, and no other waiter. When ctx ends first, Lock takes m
// out of the queue before it returns (waking the next waiter if m was
// first in line for a free lock), the error matches both
// [lockkit.ErrNotObtained] and ctx.Err(), and m holds nothing it did not
// hold before. Redis errors are returned as they happen, after the same
// clean-up.
func (m *Mutex) Lock(ctx context.Context) error {
	if err := m.ex().Check(ctx); err != nil {
		return err
	}
	if m.x.H.Live() != nil {
		// Re-entry is immediate: m must not queue behind waiters that wait
		// for m.
		if ok, err := m.TryLock(ctx); ok || err != nil {
			return err
		}
	}
	return m.wait(ctx)
}

// TryLock tries once to lock m, without waiting and without joining the
// queue, and reports whether it succeeded. It does not jump the queue: it
// fails while the lock is held or anyone is waiting for it, unless m holds
// the lock already, in which case it re-enters.
func (m *Mutex) TryLock(ctx context.Context) (bool, error) {
	if err := m.ex().Check(ctx); err != nil {
		return false, err
	}
	ok, _, err := m.x.H.Attempt(ctx, "lock", tryOnly)
	return ok, core.CtxError(ctx, m.x.Cfg.Name, err)
}

// Unlock undoes one Lock. When the hold count drops to zero the lock is
// freed and the first waiter in the queue, and only it, is woken.
//
// It returns an error matching [lockkit.ErrNotHeld] when m holds nothing,
// and [lockkit.ErrLost] when m held the lock but the hold is gone (then m
// holds nothing afterwards). Unlock is fenced by the hold: an Unlock that
// arrives late can never free a newer hold. If Unlock fails with a Redis
// error, its outcome is unknown; calling Unlock again settles it without
// unlocking twice. Unlock releases even when ctx has ended already: it
// then runs on a detached context bounded by a few seconds.
func (m *Mutex) Unlock(ctx context.Context) error { return m.ex().Unlock(ctx) }

// ForceUnlock frees the lock whoever holds it, however many times, and
// wakes the first waiter in the queue. It reports whether there was a hold
// to remove. Other owners learn that they lost the lock from the watchdog
// or their next Unlock. The queue is left as it is.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) { return m.ex().ForceUnlock(ctx) }

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) { return m.ex().IsLocked(ctx) }

// HoldCount returns how many times m's owner holds the lock, as Redis sees
// it: 0 when it holds nothing.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) { return m.ex().HoldCount(ctx) }

// TTL returns the lock's remaining lease, whoever holds it; 0 when free.
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) { return m.ex().TTL(ctx) }

// Token returns the fencing token of m's current hold, or 0 when m holds
// nothing. Tokens strictly increase per lock name across all clients (and
// all lock kinds); a re-entry keeps the token of the hold.
func (m *Mutex) Token() int64 { return m.ex().Token() }

// Lost returns a channel that is closed when m's current hold is lost: the
// watchdog found it gone or could not renew it before the lease ran out, a
// fixed lease ([lockkit.WithLease]) ended, or the Client was closed.
// Nothing is ever sent on it, and Unlock does not close it. It returns nil
// (a channel that never fires) when m holds nothing; call it after Lock.
func (m *Mutex) Lost() <-chan struct{} { return m.ex().Lost() }

// Name returns the lock's name.
func (m *Mutex) Name() string { return m.ex().Name() }

// ex returns m's engine, or nil for a nil m.
func (m *Mutex) ex() *core.Exclusive {
	if m == nil {
		return nil
	}
	return &m.x
}
