package rwlock

import (
	"context"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/place"
)

// RWMutex is a reentrant read-write lock on Redis: any number of owners may
// hold it for reading, or one owner for writing. Each RWMutex is one owner.
// It may take either side again while it holds it (each Lock needs its
// Unlock, each RLock its RUnlock), and while it holds the write lock it may
// also take the read lock, which it keeps after Unlock (a downgrade). A
// read-to-write upgrade is refused with [lockkit.ErrUpgrade]. Any goroutine
// may unlock what the owner holds. Two RWMutexes with the same name are two
// owners, in one process or many.
//
// Its write side is a [lockkit.Locker], and [RWMutex.RLocker] returns its
// read side as one.
//
// An RWMutex is safe for concurrent use, but goroutines sharing one share
// its holds: give each worker its own RWMutex when they must exclude each
// other. Use it through the pointer New returns; a zero RWMutex is not
// usable (its methods return [lockkit.ErrInvalid]).
type RWMutex struct {
	b     core.Base
	k     keys
	w     *core.Holder // the write hold OWNER:w
	r     *core.Holder // the read hold OWNER:r
	wwait core.PubSub  // writers wait on the writers' channel (their process's own)
	rwait core.Waiter  // readers on the readers' channel

	// op serialises the owner's acquires and releases on both holds, so
	// that they stay in step with Redis.
	op *core.Serial
}

var _ lockkit.Locker = (*RWMutex)(nil)

// handOff is how long a lock freed by its last reader is kept for the
// writers waiting in Lock: new readers stay out until a writer takes it,
// which a writer woken by the release does within a round trip or two. If
// no writer comes (it gave up or died), readers wait this long once. It is
// also how long, after a downgrade, the readers that Unlock woke get in
// whatever writers wait.
const handOff = 100 * time.Millisecond

// New returns the read-write lock name of client c for a new owner. It
// does no I/O and cannot fail: invalid arguments (a nil client, an empty
// name, a bad option) make every method return an error matching
// [lockkit.ErrInvalid]. A read-write lock cannot share its name with a
// lock of another kind: the second to take it gets an error matching
// [lockkit.ErrWrongKind].
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *RWMutex {
	m := &RWMutex{b: core.NewBase(c, config.RW, name, opts)}
	if m.b.Err != nil {
		return m
	}
	cfg := &m.b.Cfg
	m.k = newKeys(cfg.Keys)
	m.wwait = writerWaiter(c, m.k)
	m.rwait = core.PubSub{Notifier: c.Notifier(), Channel: m.k.rch}
	m.op = core.NewSerial()
	w, r := holds(cfg.Owner)
	prefer := "0"
	var late func()
	if cfg.PreferWriters {
		prefer = "1"
		late = m.withdrawLate
	}
	m.w = core.NewHolder(core.Spec{
		Config:      cfg,
		Hold:        w,
		Keys:        m.k.all,
		RenewKeys:   m.k.renew,
		Acquire:     writeScripts.Acquire,
		Release:     writeScripts.Release,
		Renew:       writeScripts.Renew,
		Undo:        writeScripts.Undo,
		AcquireArgs: []any{r},
		ReleaseArgs: []any{m.k.rch, m.k.wch, handOff.Milliseconds()},
		UndoArgs:    []any{m.k.rch, m.k.wch, handOff.Milliseconds()},
		Late:        late,
		Refused:     m.refused,
		Op:          m.op,
	})
	m.r = core.NewHolder(core.Spec{
		Config:      cfg,
		Hold:        r,
		Keys:        m.k.all,
		RenewKeys:   m.k.renew,
		Acquire:     readScripts.Acquire,
		Release:     readScripts.Release,
		Renew:       readScripts.Renew,
		Undo:        readScripts.Undo,
		AcquireArgs: []any{w, prefer},
		ReleaseArgs: []any{m.k.wch, handOff.Milliseconds()},
		UndoArgs:    []any{m.k.rch, m.k.wch, handOff.Milliseconds()},
		Read:        true,
		Op:          m.op,
	})
	return m
}

// Lock locks m for writing. If another owner holds the lock, for reading or
// writing, Lock blocks until it is free (every reader left or its lease ran
// out) and m gets it, or until ctx ends. If m holds the write lock already,
// Lock re-enters at once. If m holds the read lock but not the write lock,
// Lock returns an error matching [lockkit.ErrUpgrade] at once. The same
// holds for the holds of m's owner taken through another RWMutex with its
// id ([lockkit.WithOwner]).
//
// With writer preference (the default, see [WithWriterPreference]) a
// waiting Lock holds back owners that do not read yet, so it waits only for
// the readers already in. With or without it, when the last reader leaves
// while Lock waits, the lock is kept for the waiting writers for a moment
// (100 ms at most) instead of going to whichever reader comes back first.
//
// When ctx ends first, the error matches both [lockkit.ErrNotObtained] and
// ctx.Err(), m holds nothing it did not hold before, and its intent is
// withdrawn so that readers go on at once, unless another call still waits
// to write as m's owner (a goroutine sharing m, or an RWMutex of m's Client
// with m's owner id): the intent is the owner's, and stays while it waits.
// Redis errors are returned as they happen.
func (m *RWMutex) Lock(ctx context.Context) error {
	if err := m.base().Check(ctx); err != nil {
		return err
	}
	var intent time.Duration
	var writers *place.Place // the calls waiting to write as m's owner
	if m.b.Cfg.PreferWriters {
		intent = m.b.Cfg.WatchdogTimeout
		writers = place.Enter(m.writers())
	}
	attempt := m.writeAttempt(intent, true, writers)
	var ok bool
	var err error
	if m.w.Live() != nil || m.r.Live() != nil || m.shared() {
		// A re-entry, or an upgrade to refuse: decided at once, never
		// queued behind this process's waiting writers.
		ok, err = m.direct(ctx, attempt)
	}
	if !ok && err == nil {
		err = core.Wait(ctx, m.w.Tracer(), m.b.Cfg.Name, m.wwait, attempt)
	}
	switch {
	case writers == nil:
	case err == nil:
		writers.Exit()
	default:
		// The intent is the owner's: it stays while another call waits to
		// write as the owner, and the last of them withdraws it, also when
		// it registered none itself (its wait ended before an attempt, by
		// Close, say, or an upgrade was refused) while one that did gave
		// up before it. If the withdrawal fails, the intent lapses within
		// the watchdog timeout.
		_ = core.Cleanup(ctx, m.b.Cfg.Client, func(ctx context.Context) error {
			// An attempt still on its way when ctx ended may register the
			// intent again: withdraw after it, if it comes in time (else
			// withdrawLate withdraws when it does).
			m.w.AwaitLate(ctx)
			w, _ := holds(m.b.Cfg.Owner)
			return writers.Leave(func() error {
				_, err := withdraw(ctx, m.b.Cfg.Client, m.k, w)
				return err
			})
		})
	}
	return err
}

// writers returns the place of the calls waiting to write as m's owner.
func (m *RWMutex) writers() place.Key {
	return place.Key{Client: m.b.Cfg.Client, Lock: m.b.Cfg.Keys.Base, Owner: m.b.Cfg.Owner}
}

// withdrawLate withdraws the owner's intent once the reply of a write
// attempt whose caller gave up has come, unless a call still waits to
// write as the owner: the attempt may have registered the intent after
// Lock's withdrawal, or after Lock stopped waiting for it (a server that
// stalled for longer than the clean-up's bound), and that intent would
// hold back every new reader until it lapsed (the watchdog timeout).
func (m *RWMutex) withdrawLate() {
	ctx, cancel := core.Detached(context.Background())
	defer cancel()
	w, _ := holds(m.b.Cfg.Owner)
	// If this fails too, the intent lapses within the watchdog timeout.
	_ = place.Idle(m.writers(), func() error {
		_, err := withdraw(ctx, m.b.Cfg.Client, m.k, w)
		return err
	})
}

// TryLock tries once to lock m for writing, without waiting, and reports
// whether it succeeded. It re-enters when m holds the write lock, and
// returns an error matching [lockkit.ErrUpgrade] when m holds only the
// read lock. It also fails while a release keeps the free lock for the
// writers of the waiting process it woke (for 100 ms at most), unless m's
// Client is that process. A failed TryLock leaves no intent behind: it
// does not hold back readers.
func (m *RWMutex) TryLock(ctx context.Context) (bool, error) {
	if err := m.base().Check(ctx); err != nil {
		return false, err
	}
	ok, _, err := m.writeAttempt(0, false, nil)(ctx, m.wwait.TryArgs()...)
	return ok, core.CtxError(ctx, m.b.Cfg.Name, err)
}

// writeAttempt returns one try at the write lock. A non-zero intent
// registers the owner's intent when the lock is busy, and bounds the wait
// by a third of it, so that the intent is refreshed while the writer
// waits. With claim, a busy lock is claimed, so that it is handed off to
// the waiting writers when its last reader leaves. An attempt that may
// register the intent runs as an Attempt of writers, the place of the
// calls waiting to write as m's owner.
func (m *RWMutex) writeAttempt(intent time.Duration, claim bool, writers *place.Place) core.Attempt {
	claims := "0"
	if claim {
		claims = "1"
	}
	return func(ctx context.Context, args ...any) (ok bool, wait time.Duration, err error) {
		try := func() {
			ok, wait, err = m.w.Attempt(ctx, "lock", append([]any{intent.Milliseconds(), claims}, args...)...)
		}
		if intent > 0 {
			writers.Attempt(try)
		} else {
			try()
		}
		if intent > 0 && !ok && err == nil {
			if beat := intent / 3; wait < 0 || wait > beat {
				wait = beat
			}
		}
		return ok, wait, err
	}
}

// Unlock undoes one Lock. When the write hold count drops to zero the write
// hold ends: every waiting reader and one waiting writer are woken (see
// the package documentation for which). If m also holds the read lock, it
// keeps it (a downgrade) and the lock stays read-locked; the readers woken
// then get in even while writers wait, for a moment (100 ms at most).
//
// It returns an error matching [lockkit.ErrNotHeld] when m holds no write
// hold, and [lockkit.ErrLost] when m held one but it is gone (then m holds
// no write hold afterwards). Unlock is fenced by the hold: an Unlock that
// arrives late can never end a newer hold. If Unlock fails with a Redis
// error, its outcome is unknown; calling Unlock again settles it without
// unlocking twice. When that Unlock was the last one of the write hold, m
// also settles it in the background, asking the server again (20 ms
// apart, doubling to 2 s) until it answers, so that a failed Unlock that
// is never called again does not keep the lock held; the next Unlock then
// returns the outcome. Unlock releases even when ctx has ended already: it then
// runs on a detached context, waiting at most 500 ms for the server.
func (m *RWMutex) Unlock(ctx context.Context) error {
	if err := m.base().CheckInput(ctx); err != nil {
		return err
	}
	return m.w.Release(ctx, "unlock")
}

// RLock locks m for reading. If m holds the read lock already, or holds the
// write lock, RLock takes it at once (and so it does when m's owner holds
// it through another RWMutex with its id, [lockkit.WithOwner]). Otherwise it blocks while another
// owner holds the write lock and, with writer preference, while a writer
// waits; then m joins the readers. When ctx ends first, the error matches
// both [lockkit.ErrNotObtained] and ctx.Err() and m holds nothing it did
// not hold before.
//
// Each owner's read hold has its own lease, renewed by the watchdog: a
// crashed reader's hold ends by itself and does not keep the lock, or any
// other reader's hold, alive.
func (m *RWMutex) RLock(ctx context.Context) error {
	if err := m.base().Check(ctx); err != nil {
		return err
	}
	if m.r.Live() != nil || m.w.Live() != nil || m.shared() {
		// A re-entry, or the writer taking the read lock: never queued
		// behind this process's waiting readers, which may be waiting for
		// this very owner.
		if ok, err := m.direct(ctx, m.readAttempt); ok || err != nil {
			return err
		}
	}
	return core.Wait(ctx, m.r.Tracer(), m.b.Cfg.Name, m.rwait, m.readAttempt)
}

// TryRLock tries once to lock m for reading, without waiting, and reports
// whether it succeeded. Like RLock it re-enters, and with writer preference
// it fails while a writer waits.
func (m *RWMutex) TryRLock(ctx context.Context) (bool, error) {
	if err := m.base().Check(ctx); err != nil {
		return false, err
	}
	ok, _, err := m.readAttempt(ctx)
	return ok, core.CtxError(ctx, m.b.Cfg.Name, err)
}

// readAttempt makes one try at the read lock.
func (m *RWMutex) readAttempt(ctx context.Context, _ ...any) (bool, time.Duration, error) {
	ok, wait, err := m.r.Attempt(ctx, "rlock")
	if ok {
		// Readers share the lock: the next local reader may try at once.
		wait = 0
	}
	return ok, wait, err
}

// shared reports whether m's owner id may be shared with other values
// (WithOwner): a hold of the owner that m does not know of may then exist,
// and only an attempt tells whether a Lock or RLock of m re-enters it.
func (m *RWMutex) shared() bool { return !m.b.Cfg.OwnOwner }

// direct makes one attempt outside the wait protocol, with the errors of
// a wait: an ended ctx is reported as ErrNotObtained.
func (m *RWMutex) direct(ctx context.Context, attempt core.Attempt) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, core.NotObtained(m.b.Cfg.Name, err)
	}
	ok, _, err := attempt(ctx)
	return ok, core.CtxError(ctx, m.b.Cfg.Name, err)
}

// RUnlock undoes one RLock. When m's read hold count drops to zero its read
// hold ends, and if it was the last hold on the lock one waiting writer is
// woken, and the lock is kept for the waiting writers for a moment (see
// Lock).
//
// It returns an error matching [lockkit.ErrNotHeld] when m holds no read
// hold, and [lockkit.ErrLost] when m held one but it is gone. Like Unlock
// it is fenced by the hold, safe to call again after a Redis error (and
// settled in the background when it was the last RUnlock of the read
// hold), and releases even when ctx has ended.
func (m *RWMutex) RUnlock(ctx context.Context) error {
	if err := m.base().CheckInput(ctx); err != nil {
		return err
	}
	return m.r.Release(ctx, "runlock")
}

// ForceUnlock frees the lock whoever holds it, for reading or writing, and
// wakes every waiter. It reports whether there were holds to remove. Other
// owners learn that they lost their holds from the watchdog or their next
// Unlock or RUnlock. Waiting writers keep waiting (and holding back
// readers).
func (m *RWMutex) ForceUnlock(ctx context.Context) (bool, error) {
	if err := m.base().Check(ctx); err != nil {
		return false, err
	}
	if err := m.op.Lock(ctx); err != nil {
		return false, core.Op("force unlock", m.b.Cfg.Name, err)
	}
	defer m.op.Unlock()
	var ok bool
	err := m.w.Suspended(func() error {
		return m.r.Suspended(func() (err error) {
			ok, err = forceUnlock(ctx, m.b.Cfg.Client, m.k)
			return err
		})
	})
	if err != nil {
		return false, core.Op("force unlock", m.b.Cfg.Name, err)
	}
	return ok, nil
}

// Token returns the fencing token of m's write hold, or 0 when m holds no
// write hold. Read and write holds draw tokens from one counter per lock
// name, so every fresh hold of either kind gets a token larger than any
// before it; a re-entry keeps the token of the hold.
func (m *RWMutex) Token() int64 { return m.write().Token() }

// RToken returns the fencing token of m's read hold, or 0 when m holds no
// read hold. It is larger than the token of every write hold that ended
// before the read hold began, so it tells which writes a read may have
// seen. A read hold taken by the writer (a downgrade) gets its own token.
func (m *RWMutex) RToken() int64 { return m.read().Token() }

// Lost returns a channel that is closed when m's current write hold is
// lost: the watchdog found it gone or could not renew it before the lease
// ran out, a fixed lease ([lockkit.WithLease]) ended, or the Client was
// closed. Nothing is ever sent on it, and Unlock does not close it; nor
// does a loss found after the Unlock of m's last write acquire failed
// with its outcome unknown (the hold is no longer the caller's to use):
// the Unlock called again tells. It returns nil (a channel that never fires) when m holds no
// write hold; call it after Lock.
func (m *RWMutex) Lost() <-chan struct{} { return m.write().Lost() }

// RLost is Lost for m's read hold; call it after RLock.
func (m *RWMutex) RLost() <-chan struct{} { return m.read().Lost() }

// Context returns a copy of parent that is cancelled when m's current
// write hold ends: when it is lost, with a cause matching
// [lockkit.ErrLost] (see [context.Cause]), and when Unlock releases it,
// with a cause matching [lockkit.ErrNotHeld]. When m holds no write hold
// it is cancelled already, and so it is, with the loss, when m's write
// hold was lost before the call and not yet unlocked. Call it after Lock;
// a nil parent counts as context.Background().
func (m *RWMutex) Context(parent context.Context) context.Context {
	return m.write().Context(parent)
}

// RContext is Context for m's read hold; call it after RLock.
func (m *RWMutex) RContext(parent context.Context) context.Context {
	return m.read().Context(parent)
}

// Name returns the lock's name.
func (m *RWMutex) Name() string { return m.base().Name() }

// write and read return the slots of m's write and read holds; nil (a
// slot that holds nothing) for an m not made by New.
func (m *RWMutex) write() *core.Slot {
	if m == nil || m.w == nil {
		return nil
	}
	return &m.w.Slot
}

func (m *RWMutex) read() *core.Slot {
	if m == nil || m.r == nil {
		return nil
	}
	return &m.r.Slot
}

// base returns m's base, or nil for a nil m.
func (m *RWMutex) base() *core.Base {
	if m == nil {
		return nil
	}
	return &m.b
}
