package fair

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/hashlock"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/watchdog"
)

// Mutex is a reentrant lock on Redis that is handed out in the order
// callers started waiting for it, across goroutines and processes. Each
// Mutex is one owner: locking it again while it is held re-enters (the
// hold count grows by one), and any goroutine may Unlock it. Two Mutexes
// with the same name are two owners and exclude each other, in one process
// or many.
//
// A Mutex is safe for concurrent use. Its methods do not copy it; use it
// through the pointer New returns.
type Mutex struct {
	name    string
	err     error // invalid arguments, reported by every method
	client  redis.UniversalClient
	keys    keys
	opts    options
	channel string // this owner's own channel
	holder  *internal.Holder
	nt      *notify.Notifier

	// op serialises this owner's scripts (acquire, release, leave), so the
	// holder stays in step with Redis when goroutines share the owner.
	op sync.Mutex

	mu      sync.Mutex // guards waiting
	waiting int        // goroutines inside Lock; the last one out leaves the queue

	// contended is set when the last Lock had to wait; the next one then
	// subscribes before its first attempt, which saves the attempt that
	// would otherwise follow the subscription.
	contended atomic.Bool
}

// New returns the fair lock name on client for a new owner. It does no I/O
// and cannot fail: invalid arguments (a nil client, an empty name, a bad
// option) make every method return an error matching [ErrInvalid].
func New(client redis.UniversalClient, name string, opts ...Option) *Mutex {
	o := options{Options: internal.DefaultOptions(), waiterTimeout: DefaultWaiterTimeout}
	for _, opt := range opts {
		if opt == nil {
			o.AddError(internal.Invalid("nil Option"))
			continue
		}
		opt(&o)
	}
	m := &Mutex{name: name}
	if m.err = o.Validate(client, name); m.err != nil {
		return m
	}
	m.client = client
	m.opts = o
	m.keys = newKeys(o.Prefix, name)
	m.channel = m.keys.channels + o.Owner
	m.nt = notify.For(client)
	var wd *watchdog.Watchdog
	if o.Watched() {
		wd = watchdog.For(client)
	}
	ttl := o.TTL()
	m.holder = internal.NewHolder(name, ttl, wd, func(token int64) watchdog.Lease {
		return hashlock.RenewLease(m.keys.lock, o.Owner, token, ttl)
	})
	return m
}

// Lock locks m. If the lock is held by another owner or others are already
// waiting for it, m joins the end of the queue and Lock blocks until every
// waiter ahead of it has had its turn and the lock is free, or until ctx
// ends. If m holds the lock already, Lock re-enters at once.
//
// While it waits, Lock renews m's place in the queue every third of the
// waiter timeout ([WithWaiterTimeout]); the release that makes m first in
// line wakes it, and no other waiter. When ctx ends first, Lock takes m out
// of the queue before it returns (waking the next waiter if m was first in
// line for a free lock), the error matches both [ErrNotObtained] and
// ctx.Err(), and m holds nothing it did not hold before. Redis errors are
// returned as they happen, after the same clean-up.
func (m *Mutex) Lock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	if err := ctx.Err(); err != nil {
		return internal.NotObtained(m.name, err)
	}
	return m.wait(ctx)
}

// TryLock tries once to lock m, without waiting and without joining the
// queue, and reports whether it succeeded. It does not jump the queue: it
// fails while the lock is held or anyone is waiting for it, unless m holds
// the lock already, in which case it re-enters.
func (m *Mutex) TryLock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	ok, _, err := m.attempt(ctx, false)
	if err != nil {
		m.op.Lock()
		defer m.op.Unlock()
		return false, m.cleanUp(ctx, err, false, true)
	}
	return ok, nil
}

// Unlock undoes one Lock. When the hold count drops to zero the lock is
// freed and the first waiter in the queue, and only it, is woken.
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
	m.op.Lock()
	defer m.op.Unlock()
	return m.holder.Release(ctx, "unlock", func(ctx context.Context, h *internal.Hold, id string) (int64, error) {
		return runRelease(ctx, m.client, m.keys, m.opts.Owner, h.Token, id, hashlock.ReleaseWindow)
	})
}

// ForceUnlock frees the lock whoever holds it, however many times, and wakes
// the first waiter in the queue. It reports whether there was a hold to
// remove. Other owners learn that they lost the lock from the watchdog or
// their next Unlock. The queue is left as it is.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	m.op.Lock()
	defer m.op.Unlock()
	var ok bool
	err := m.holder.Suspended(func() (err error) {
		ok, err = runForceUnlock(ctx, m.client, m.keys)
		return err
	})
	if err != nil {
		return false, internal.Op("force unlock", m.name, err)
	}
	return ok, nil
}

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	return hashlock.IsLocked(ctx, m.client, m.name, m.keys.lock)
}

// HoldCount returns how many times m holds the lock, as Redis sees it: 0
// when it holds nothing.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	if m.err != nil {
		return 0, m.err
	}
	return hashlock.HoldCount(ctx, m.client, m.name, m.keys.lock, m.opts.Owner)
}

// TTL returns the lock's remaining lease, whoever holds it; 0 when free.
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) {
	if m.err != nil {
		return 0, m.err
	}
	return hashlock.TTL(ctx, m.client, m.name, m.keys.lock)
}

// Token returns the fencing token of m's current hold, or 0 when m holds
// nothing. Tokens strictly increase per lock name across all clients; a
// re-entry keeps the token of the hold.
func (m *Mutex) Token() int64 {
	if m.err != nil {
		return 0
	}
	return m.holder.Token()
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
	return m.holder.Lost()
}

// Name returns the lock's name.
func (m *Mutex) Name() string { return m.name }
