package spin

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/hashlock"
)

// Mutex is a reentrant lock on Redis that waits by backoff instead of
// pub/sub. Each Mutex is one owner: locking it again while it is held
// re-enters (the hold count grows by one), and any goroutine may Unlock it.
// Two Mutexes with the same name are two owners and exclude each other, in
// one process or many.
//
// A Mutex is safe for concurrent use. Its methods do not copy it; use it
// through the pointer New returns.
type Mutex struct {
	name       string
	err        error // invalid arguments, reported by every method
	lock       *hashlock.Lock
	floor, cap time.Duration // backoff bounds
}

// New returns the lock name on client for a new owner. It does no I/O and
// cannot fail: invalid arguments (a nil client, an empty name, a bad
// option) make every method return an error matching [ErrInvalid].
func New(client redis.UniversalClient, name string, opts ...Option) *Mutex {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	m := &Mutex{name: name, floor: o.floor, cap: o.cap}
	if m.err = o.Validate(client, name); m.err != nil {
		return m
	}
	// No channel: releases publish nothing and waiters never subscribe.
	m.lock = hashlock.New(client, name, o.Options, false)
	return m
}

// Lock locks m. If another owner holds the lock, Lock tries again after a
// randomised, growing sleep (see [WithBackoff]) that never outlasts the
// holder's remaining lease, until m gets the lock or ctx ends. If m holds
// it already, Lock re-enters at once.
//
// When ctx ends first, the error matches both [ErrNotObtained] and
// ctx.Err(), and m holds nothing it did not hold before. Redis errors are
// returned as they happen.
func (m *Mutex) Lock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	if err := ctx.Err(); err != nil {
		return internal.NotObtained(m.name, err)
	}
	b := internal.NewBackoff(m.floor, m.cap)
	for {
		ok, wait, err := m.lock.Attempt(ctx)
		if err != nil {
			return internal.CtxError(ctx, m.name, err)
		}
		if ok {
			return nil
		}
		limit := time.Duration(-1)
		if wait >= 0 {
			// Look again as soon as the holder's lease has run out (plus a
			// millisecond for the server to expire the key).
			limit = wait + time.Millisecond
		}
		if err := b.Sleep(ctx, limit); err != nil {
			return internal.NotObtained(m.name, err)
		}
	}
}

// TryLock tries once to lock m, without waiting, and reports whether it
// succeeded. It re-enters when m holds the lock already.
func (m *Mutex) TryLock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	ok, _, err := m.lock.Attempt(ctx)
	return ok, err
}

// Unlock undoes one Lock. When the hold count drops to zero the lock is
// freed; waiters find out at their next attempt (nothing is published).
//
// It returns an error matching [ErrNotHeld] when m holds nothing, and
// [ErrLost] when m held the lock but the hold is gone (then m holds nothing
// afterwards). Unlock is fenced by the hold: an Unlock that arrives late can
// never free a newer hold. If Unlock fails with a Redis error, its outcome is
// unknown; calling Unlock again settles it without unlocking twice.
func (m *Mutex) Unlock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	return m.lock.Unlock(ctx)
}

// ForceUnlock frees the lock whoever holds it, however many times. It
// reports whether there was a hold to remove. Other owners learn that they
// lost the lock from the watchdog or their next Unlock.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	return m.lock.ForceUnlock(ctx)
}

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	return m.lock.IsLocked(ctx)
}

// HoldCount returns how many times m holds the lock, as Redis sees it: 0
// when it holds nothing.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	return m.lock.HoldCount(ctx)
}

// TTL returns the lock's remaining lease, whoever holds it; 0 when free.
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) {
	if m.err != nil {
		return 0, m.err
	}
	return m.lock.TTL(ctx)
}

// Token returns the fencing token of m's current hold, or 0 when m holds
// nothing. Tokens strictly increase per lock name across all clients; a
// re-entry keeps the token of the hold.
func (m *Mutex) Token() int64 {
	if m.err != nil {
		return 0
	}
	return m.lock.Token()
}

// Lost returns a channel that is closed when m's current hold is lost: the
// watchdog found it gone or could not renew it before the lease ran out, or
// a fixed lease ([WithLease]) ended. Nothing is ever sent on it, and Unlock
// does not close it. It returns nil (a channel that never fires) when m
// holds nothing; call it after Lock.
func (m *Mutex) Lost() <-chan struct{} {
	if m.err != nil {
		return nil
	}
	return m.lock.Lost()
}

// Name returns the lock's name.
func (m *Mutex) Name() string { return m.name }
