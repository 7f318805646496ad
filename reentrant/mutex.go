package reentrant

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
)

// Mutex is a reentrant lock on Redis. Each Mutex is one owner: locking it
// again while it is held re-enters (the hold count grows by one), and any
// goroutine may Unlock it. Two Mutexes with the same name are two owners
// and exclude each other, in one process or many.
//
// Mutex is also the type of the spin lock
// ([github.com/lockkit/lockkit/spin.New]) and of the fair lock
// ([github.com/lockkit/lockkit/fair.New]): the kinds differ only in how
// Lock and TryLock take the hold. A reentrant lock's waiters are woken by
// pub/sub, a spin lock's retry by backoff, and a fair lock's wait in a
// queue, served in arrival order.
//
// A Mutex is safe for concurrent use. Use it through the pointer New
// returns; a zero Mutex is not usable (its methods return [lockkit.ErrInvalid]).
type Mutex struct {
	x core.Exclusive
	s core.Strategy

	// In cohort mode (WithLocalHandoff), local is set; opts are New's,
	// for the cohort's own lock value, co the cohort m joined last, slot
	// is m's tenure of the hold its cohort lends it, held the cohort that
	// lends it (see cohort.go), share its join of that cohort while it
	// keeps a tenure lost there (see dropLost), and doubt m's last Unlock
	// whose outcome was unknown, until an Unlock of m returns how it was
	// settled (see settle.go).
	local bool
	opts  []lockkit.Option
	co    atomic.Pointer[cohort]
	slot  core.Slot
	held  atomic.Pointer[cohort]
	share atomic.Pointer[lostShare]
	doubt atomic.Pointer[settlement]
}

var _ lockkit.Locker = (*Mutex)(nil)

// New returns the lock name of client c for a new owner. It does no I/O and
// cannot fail: invalid arguments (a nil client, an empty name, a bad
// option) make every method return an error matching
// [lockkit.ErrInvalid].
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *Mutex {
	m := &Mutex{x: core.Exclusive{Base: core.NewBase(c, config.Reentrant, name, opts)}}
	if m.x.Err != nil {
		return m
	}
	var ok bool
	if m.s, ok = m.x.Cfg.Strategy.(core.Strategy); !ok {
		m.s = &hashLock{}
	}
	m.s.Setup(&m.x)
	if m.x.Cfg.HandoffMax > 0 {
		if !m.x.Cfg.OwnOwner {
			m.x.Err = core.Invalid("%s %q: WithLocalHandoff: cannot be combined with WithOwner", m.x.Cfg.Kind, name)
			return m
		}
		m.local, m.opts = true, slices.Clone(opts)
		// The hold a ForceUnlock removed may be this process's: the
		// watchdog finds out at once, so that its local holder learns it
		// is lost.
		m.x.Forced = m.x.Cfg.Client.Watchdog().Check
	}
	return m
}

// Lock locks m. If another owner holds the lock, Lock blocks until it is
// released (or its lease runs out) and m gets it, or until ctx ends. If m
// holds it already, Lock re-enters at once, unless m was made with
// [lockkit.WithoutReentry]: then it waits for m's own hold to be released
// as for another owner's. (A fair lock also waits for the owners queued
// before it; see package fair.)
//
// When ctx ends first, the error matches both [lockkit.ErrNotObtained] and
// ctx.Err(), and m holds nothing it did not hold before. Redis errors are
// returned as they happen; a name held by a lock of another kind is
// [lockkit.ErrWrongKind].
func (m *Mutex) Lock(ctx context.Context) error {
	if err := m.ex().Check(ctx); err != nil {
		return err
	}
	if m.local {
		return m.lockLocal(ctx)
	}
	return m.s.Lock(ctx, &m.x)
}

// TryLock tries once to lock m, without waiting, and reports whether it
// succeeded. It re-enters when m holds the lock already, or fails then
// with [lockkit.WithoutReentry]. It also fails while a release keeps the
// free lock for the waiting process it woke (for 100 ms at most), unless
// m's Client is that process. (A fair lock's TryLock also fails while
// owners are queued; see package fair.)
func (m *Mutex) TryLock(ctx context.Context) (bool, error) {
	if err := m.ex().Check(ctx); err != nil {
		return false, err
	}
	if m.local {
		return m.tryLockLocal(ctx)
	}
	return m.s.TryLock(ctx, &m.x)
}

// Unlock undoes one Lock. When the hold count drops to zero the lock is
// freed and one waiting process is woken, which wakes its first waiter
// (on a client that cannot tell whether a process listens, one waiter in
// each waiting process; see the package documentation, Waiting).
//
// It returns an error matching [lockkit.ErrNotHeld] when m holds nothing,
// and [lockkit.ErrLost] when m held the lock but the hold is gone (then m
// holds nothing afterwards). Unlock is fenced by the hold: an Unlock that
// arrives late can never free a newer hold. If Unlock fails with a Redis
// error, its outcome is unknown; calling Unlock again settles it without
// unlocking twice. When that Unlock was the last one of the hold, m also
// settles it in the background, asking the server again (20 ms apart,
// doubling to 2 s) until it answers, so that a failed Unlock that is
// never called again does not keep the lock held; the next Unlock then
// returns the outcome. Unlock releases even when ctx has ended already (a
// request cancelled while holding the lock, say): it then runs on a
// detached context, waiting at most 500 ms for the server (a release not
// answered by then goes on in the background; call Unlock again to learn
// its outcome). Like every call, Unlock returns within its ctx deadline
// even when the server stops answering.
func (m *Mutex) Unlock(ctx context.Context) error {
	if m != nil && m.local {
		return m.unlockLocal(ctx)
	}
	return m.ex().Unlock(ctx)
}

// ForceUnlock frees the lock whoever holds it, however many times, and
// wakes every waiter (the first in the queue, for a fair lock). It reports
// whether there was a hold to remove, also when the client sent it twice
// (a re-send after a lost reply). Other owners learn that they lost the
// lock from the watchdog or their next Unlock.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	if m != nil && m.local {
		return m.forceLocal(ctx)
	}
	return m.ex().ForceUnlock(ctx)
}

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) { return m.ex().IsLocked(ctx) }

// HoldCount returns how many times m's owner holds the lock, as Redis sees
// it: 0 when it holds nothing.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	if m != nil && m.local {
		return m.holdCountLocal(ctx)
	}
	return m.ex().HoldCount(ctx)
}

// TTL returns the lock's remaining lease, whoever holds it; 0 when free.
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) { return m.ex().TTL(ctx) }

// Token returns the fencing token of m's current hold, or 0 when m holds
// nothing. Tokens strictly increase per lock name across all clients,
// also across a Redis restart that lost the data (see the package
// documentation); a re-entry keeps the token of the hold.
func (m *Mutex) Token() int64 {
	if m != nil && m.local {
		return m.slot.Token()
	}
	return m.ex().Token()
}

// Lost returns a channel that is closed when m's current hold is lost: the
// watchdog found it gone or could not renew it before the lease ran out, a
// fixed lease ([lockkit.WithLease]) ended, the Client was closed, or an
// Unlock found it gone first (that Unlock returns [lockkit.ErrLost]).
// Nothing is ever sent on it, and an Unlock that releases the hold does
// not close it; nor does the watchdog, finding the hold gone or not
// renewed, after the Unlock of m's last acquire failed with its outcome
// unknown (the hold is no longer the caller's to use, and may be gone by
// that Unlock): the Unlock called again tells, or its retry in the
// background, which closes it when it finds the hold gone and not
// released (see the README's "The watchdog"). It returns nil (a channel
// that never fires) when m holds nothing; call it after Lock.
func (m *Mutex) Lost() <-chan struct{} {
	if m != nil && m.local {
		return m.slot.Lost()
	}
	return m.ex().Lost()
}

// Context returns a copy of parent that is cancelled when m's current
// hold ends, so that work done under the lock stops when the lock is gone
// (as an etcd Session's context does): when the hold is lost, with a cause
// matching [lockkit.ErrLost] (see [context.Cause]), and when Unlock
// releases it, with a cause matching [lockkit.ErrNotHeld]. When m holds
// nothing it is cancelled already, and so it is, with the loss, when m's
// hold was lost before the call and not yet unlocked. Call it after Lock;
// a nil parent counts as context.Background().
func (m *Mutex) Context(parent context.Context) context.Context {
	if m != nil && m.local {
		return m.slot.Context(parent)
	}
	return m.ex().Context(parent)
}

// Name returns the lock's name.
func (m *Mutex) Name() string { return m.ex().Name() }

// ex returns m's engine, or nil for a nil m.
func (m *Mutex) ex() *core.Exclusive {
	if m == nil {
		return nil
	}
	return &m.x
}

// hashLock is how reentrant and spin locks take their hold: the hash
// lock's scripts, and a waiter woken by pub/sub (reentrant) or retrying by
// backoff (spin; its releases publish nothing).
type hashLock struct {
	waiter core.Waiter
	try    []any // the waiter's args of a TryLock's attempt
	// reenter is false for a non-reentrant lock (lockkit.WithoutReentry):
	// every acquire then tells the script to refuse the owner's own hold.
	reenter bool
}

// Setup implements core.Strategy.
func (l *hashLock) Setup(x *core.Exclusive) {
	cfg := &x.Cfg
	keys := cfg.Keys
	ch := "" // where releases are published; none for a spin lock
	if cfg.Kind == config.Spin {
		l.waiter = core.Backoff{
			Floor: cfg.BackoffFloor, Cap: cfg.BackoffCap,
			Multiplier: cfg.BackoffMultiplier, Exact: cfg.BackoffExact,
			Done: cfg.Client.Done(),
		}
	} else {
		ch = keys.Channel
		w := core.HashLockWaiter(cfg)
		l.waiter, l.try = w, w.TryArgs()
	}
	l.reenter = !cfg.NoReentry
	spec := core.HashLock(cfg, ch)
	force := []any{ch, cfg.Kind}
	if cfg.Vacancy != "" {
		// Whatever frees the lock says so on that channel too.
		v := keys.Chan(cfg.Vacancy)
		spec.ReleaseArgs = append(spec.ReleaseArgs, v)
		spec.UndoArgs = append(spec.UndoArgs, v)
		force = append(force, v)
	}
	x.H = core.NewHolder(spec)
	x.Force, x.ForceKeys, x.ForceArgs = lua.Mutex.Force, spec.Keys, force
}

// Lock implements core.Strategy: re-entry at once, else the engine's wait.
// A non-reentrant lock's owner waits for its own hold like any other.
func (l *hashLock) Lock(ctx context.Context, x *core.Exclusive) error {
	if l.reenter && x.H.Live() != nil {
		// Re-entry is immediate: the owner must not queue behind waiters
		// that wait for it.
		if ok, err := l.TryLock(ctx, x); ok || err != nil {
			return err
		}
	}
	return core.Wait(ctx, x.H.Tracer(), x.Cfg.Name, l.waiter, func(ctx context.Context, args ...any) (bool, time.Duration, error) {
		return x.H.Attempt(ctx, "lock", l.args(args)...)
	})
}

// TryLock implements core.Strategy.
func (l *hashLock) TryLock(ctx context.Context, x *core.Exclusive) (bool, error) {
	ok, _, err := x.H.Attempt(ctx, "lock", l.args(l.try)...)
	return ok, core.CtxError(ctx, x.Cfg.Name, err)
}

// args returns an attempt's arguments to acquire.lua beyond the kind: the
// waiter's (ARGV[5], ARGV[6]) and, for a non-reentrant lock, ARGV[7], which
// needs the waiter's before it (empty and "0" when no process waits).
func (l *hashLock) args(waiter []any) []any {
	if l.reenter {
		return waiter
	}
	if len(waiter) == 0 {
		waiter = []any{"", "0"}
	}
	return append(waiter[:len(waiter):len(waiter)], "1")
}
