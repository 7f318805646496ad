package rwlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/hashlock"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/watchdog"
)

// cleanupTimeout bounds the calls that clean up after a Lock or RLock that
// failed: the undo of an acquire whose reply was lost, and the withdrawal of
// a writer's intent. They run on a context not cancelled with the caller's.
// If they fail, the hold ends with its lease and the intent lapses within
// the watchdog timeout.
const cleanupTimeout = 5 * time.Second

// RWMutex is a reentrant read-write lock on Redis: any number of owners may
// hold it for reading, or one owner for writing. Each RWMutex is one owner.
// It may take either side again while it holds it (each Lock needs its
// Unlock, each RLock its RUnlock), and while it holds the write lock it may
// also take the read lock, which it keeps after Unlock (a downgrade). A
// read-to-write upgrade is refused with [ErrUpgrade]. Any goroutine may
// unlock what the owner holds. Two RWMutexes with the same name are two
// owners, in one process or many.
//
// An RWMutex is safe for concurrent use, but goroutines sharing one share
// its holds: give each worker its own RWMutex when they must exclude each
// other. Its methods do not copy it; use it through the pointer New
// returns.
type RWMutex struct {
	name   string
	err    error // invalid arguments, reported by every method
	client redis.UniversalClient
	opts   options
	keys   keys
	nt     *notify.Notifier
	w      *internal.Holder // the write hold
	r      *internal.Holder // the read hold

	// op serialises this owner's acquires and releases, so the holders stay
	// in step with Redis when several goroutines share the owner.
	op sync.Mutex
}

// New returns the read-write lock name on client for a new owner. It does
// no I/O and cannot fail: invalid arguments (a nil client, an empty name, a
// bad option) make every method return an error matching [ErrInvalid].
func New(client redis.UniversalClient, name string, opts ...Option) *RWMutex {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			o.AddError(internal.Invalid("nil Option"))
			continue
		}
		opt(&o)
	}
	m := &RWMutex{name: name}
	if m.err = o.Validate(client, name); m.err != nil {
		return m
	}
	m.client, m.opts = client, o
	m.keys = newKeys(o.Prefix, name)
	m.nt = notify.For(client)
	var wd *watchdog.Watchdog
	if o.Watched() {
		wd = watchdog.For(client)
	}
	m.w = m.holder(wd, o.Owner+":w")
	m.r = m.holder(wd, o.Owner+":r")
	return m
}

// holder returns the Holder of one of the owner's holds; hold is its name
// in the lock hash and lease set.
func (m *RWMutex) holder(wd *watchdog.Watchdog, hold string) *internal.Holder {
	ttl := m.opts.TTL()
	return internal.NewHolder(m.name, ttl, wd, func(token int64) watchdog.Lease {
		return watchdog.Lease{
			Script: renewScript,
			Keys:   m.keys.all,
			Args:   []any{hold, token, ttl.Milliseconds()},
			TTL:    ttl,
		}
	})
}

// Lock locks m for writing. If another owner holds the lock, for reading or
// writing, Lock blocks until it is free (every reader left or its lease ran
// out) and m gets it, or until ctx ends. If m holds the write lock already,
// Lock re-enters at once. If m holds the read lock but not the write lock,
// Lock returns [ErrUpgrade] at once.
//
// With writer preference (the default, see [WithWriterPreference]) a
// waiting Lock holds back owners that do not read yet, so it waits only for
// the readers already in.
//
// When ctx ends first, the error matches both [ErrNotObtained] and
// ctx.Err(), m holds nothing it did not hold before, and its intent is
// withdrawn so that readers go on at once. Redis errors are returned as
// they happen.
func (m *RWMutex) Lock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	var intent time.Duration
	if m.opts.preferWriters {
		intent = m.opts.WatchdogTimeout
	}
	registered := false
	attempt := m.writeAttempt(intent, &registered)
	var ok bool
	var err error
	if m.w.Live() != nil || m.r.Live() != nil {
		// A re-entry, or an upgrade to refuse: decided at once, never
		// queued behind this process's waiting writers.
		ok, err = m.direct(ctx, attempt)
	}
	if !ok && err == nil {
		err = internal.Acquire(ctx, m.nt, m.keys.wch, m.name, attempt)
	}
	if err != nil && registered {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		_, _ = withdraw(wctx, m.client, m.keys, m.opts.Owner)
		cancel()
	}
	return err
}

// TryLock tries once to lock m for writing, without waiting, and reports
// whether it succeeded. It re-enters when m holds the write lock, and
// returns [ErrUpgrade] when m holds only the read lock. A failed TryLock
// leaves no intent behind: it does not hold back readers.
func (m *RWMutex) TryLock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	ok, _, err := m.writeAttempt(0, new(bool))(ctx)
	return ok, err
}

// writeAttempt returns one try at the write lock. A non-zero intent
// registers the owner's intent when the lock is busy (and sets
// *registered), and bounds the wait by a third of it, so that the intent is
// refreshed while the writer waits.
func (m *RWMutex) writeAttempt(intent time.Duration, registered *bool) internal.Attempt {
	return func(ctx context.Context) (bool, time.Duration, error) {
		m.op.Lock()
		defer m.op.Unlock()
		pre := m.w.Prepare()
		sent := time.Now()
		res, err := lockWrite(ctx, m.client, m.keys, m.opts.Owner, m.opts.TTL(), intent)
		if err != nil || res.count <= 0 {
			m.w.Abort(pre)
		}
		switch {
		case err != nil:
			// The intent may have been registered before the reply was lost.
			*registered = *registered || intent > 0
			m.undo(ctx, m.w, ":w")
			return false, 0, internal.Op("lock", m.name, err)
		case res.count < 0:
			return false, 0, upgradeError(m.name)
		case res.count == 0:
			*registered = *registered || intent > 0
			return false, waitFor(res.token, intent/3), nil
		}
		m.w.Acquired(pre, res.token, sent)
		// Writers queued behind this one may wait for the new hold's lease.
		return true, m.opts.TTL(), nil
	}
}

// Unlock undoes one Lock. When the write hold count drops to zero the write
// hold ends: every waiting reader and one waiting writer per process are
// woken. If m also holds the read lock, it keeps it (a downgrade) and the
// lock stays read-locked.
//
// It returns an error matching [ErrNotHeld] when m holds no write hold, and
// [ErrLost] when m held one but it is gone (then m holds no write hold
// afterwards). Unlock is fenced by the hold: an Unlock that arrives late can
// never end a newer hold. If Unlock fails with a Redis error, its outcome is
// unknown; calling Unlock again settles it without unlocking twice.
func (m *RWMutex) Unlock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	return m.release(ctx, "unlock", m.w, unlockWrite)
}

// RLock locks m for reading. If m holds the read lock already, or holds the
// write lock, RLock takes it at once. Otherwise it blocks while another
// owner holds the write lock and, with writer preference, while a writer
// waits; then m joins the readers. When ctx ends first, the error matches
// both [ErrNotObtained] and ctx.Err() and m holds nothing it did not hold
// before.
//
// Each owner's read hold has its own lease, renewed by the watchdog: a
// crashed reader's hold ends by itself and does not keep the lock, or any
// other reader's hold, alive.
func (m *RWMutex) RLock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	if m.r.Live() != nil || m.w.Live() != nil {
		// A re-entry, or the writer taking the read lock: never queued
		// behind this process's waiting readers, which may be waiting for
		// this very owner.
		if ok, err := m.direct(ctx, m.readAttempt); ok || err != nil {
			return err
		}
	}
	return internal.Acquire(ctx, m.nt, m.keys.rch, m.name, m.readAttempt)
}

// direct makes one attempt outside the wait protocol, with the same errors
// as a wait: an ended ctx is reported as ErrNotObtained.
func (m *RWMutex) direct(ctx context.Context, attempt internal.Attempt) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, internal.NotObtained(m.name, err)
	}
	ok, _, err := attempt(ctx)
	return ok, internal.CtxError(ctx, m.name, err)
}

// TryRLock tries once to lock m for reading, without waiting, and reports
// whether it succeeded. Like RLock it re-enters, and with writer preference
// it fails while a writer waits.
func (m *RWMutex) TryRLock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	ok, _, err := m.readAttempt(ctx)
	return ok, err
}

// readAttempt makes one try at the read lock.
func (m *RWMutex) readAttempt(ctx context.Context) (bool, time.Duration, error) {
	m.op.Lock()
	defer m.op.Unlock()
	pre := m.r.Prepare()
	sent := time.Now()
	res, err := lockRead(ctx, m.client, m.keys, m.opts.Owner, m.opts.TTL(), m.opts.preferWriters)
	if err != nil || res.count <= 0 {
		m.r.Abort(pre)
	}
	switch {
	case err != nil:
		m.undo(ctx, m.r, ":r")
		return false, 0, internal.Op("rlock", m.name, err)
	case res.count <= 0:
		return false, waitFor(res.token, 0), nil
	}
	m.r.Acquired(pre, res.token, sent)
	// Readers share the lock: the next local reader may try at once.
	return true, 0, nil
}

// undo cuts the owner's hold in Redis (suffix ":w" or ":r") back to what
// holder r knows of, after an acquire whose reply was lost (its ctx ended
// in flight, say): it may have run and taken or re-entered the hold.
// Without this a fresh hold nobody knows of would keep others out for a
// whole lease. Only an owner id chosen for m is undone; a shared one's hold
// may be another RWMutex's. m.op held.
func (m *RWMutex) undo(ctx context.Context, r *internal.Holder, suffix string) {
	if !m.opts.OwnOwner {
		return
	}
	var token, count int64
	if h := r.Live(); h != nil {
		token, count = h.Token, h.Count
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	// If this fails too, the stray hold ends with its lease.
	_, _ = undoHold(ctx, m.client, m.keys, m.opts.Owner+suffix, token, count)
}

// RUnlock undoes one RLock. When m's read hold count drops to zero its read
// hold ends, and if it was the last hold on the lock one waiting writer per
// process is woken.
//
// It returns an error matching [ErrNotHeld] when m holds no read hold, and
// [ErrLost] when m held one but it is gone. Like Unlock it is fenced by the
// hold and safe to call again after a Redis error.
func (m *RWMutex) RUnlock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	return m.release(ctx, "runlock", m.r, unlockRead)
}

// release undoes one acquire of hold r with the release script run.
func (m *RWMutex) release(ctx context.Context, op string, r *internal.Holder,
	run func(context.Context, redis.Scripter, keys, string, int64, string) (int64, error)) error {
	m.op.Lock()
	defer m.op.Unlock()
	return r.Release(ctx, op, func(ctx context.Context, h *internal.Hold, id string) (int64, error) {
		return run(ctx, m.client, m.keys, m.opts.Owner, h.Token, id)
	})
}

// ForceUnlock frees the lock whoever holds it, for reading or writing, and
// wakes every waiter. It reports whether there were holds to remove. Other
// owners learn that they lost their holds from the watchdog or their next
// Unlock or RUnlock. Waiting writers keep waiting (and holding back readers).
func (m *RWMutex) ForceUnlock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	m.op.Lock()
	defer m.op.Unlock()
	var ok bool
	err := m.w.Suspended(func() error {
		return m.r.Suspended(func() (err error) {
			ok, err = forceUnlock(ctx, m.client, m.keys)
			return err
		})
	})
	if err != nil {
		return false, internal.Op("force unlock", m.name, err)
	}
	return ok, nil
}

// Token returns the fencing token of m's write hold, or 0 when m holds no
// write hold. Read and write holds draw tokens from one counter per lock
// name, so every fresh hold of either kind gets a token larger than any
// before it; a re-entry keeps the token of the hold.
func (m *RWMutex) Token() int64 {
	if m.err != nil {
		return 0
	}
	return m.w.Token()
}

// RToken returns the fencing token of m's read hold, or 0 when m holds no
// read hold. It is larger than the token of every write hold that ended
// before the read hold began, so it tells which writes a read may have
// seen. A read hold taken by the writer (a downgrade) gets its own token.
func (m *RWMutex) RToken() int64 {
	if m.err != nil {
		return 0
	}
	return m.r.Token()
}

// Lost returns a channel that is closed when m's current write hold is
// lost: the watchdog found it gone or could not renew it before the lease
// ran out, or a fixed lease ([WithLease]) ended. Nothing is ever sent on
// it, and Unlock does not close it. It returns nil (a channel that never
// fires) when m holds no write hold; call it after Lock.
func (m *RWMutex) Lost() <-chan struct{} {
	if m.err != nil {
		return nil
	}
	return m.w.Lost()
}

// RLost is Lost for m's read hold; call it after RLock.
func (m *RWMutex) RLost() <-chan struct{} {
	if m.err != nil {
		return nil
	}
	return m.r.Lost()
}

// Name returns the lock's name.
func (m *RWMutex) Name() string { return m.name }

// waitFor turns the wait in ms of a refused attempt into an
// internal.Attempt wait (see hashlock.PTTLWait). A positive heartbeat caps
// it.
func waitFor(ms int64, heartbeat time.Duration) time.Duration {
	d := hashlock.PTTLWait(ms)
	if heartbeat > 0 && (d < 0 || d > heartbeat) {
		d = heartbeat
	}
	return d
}
