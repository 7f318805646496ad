package fair

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/place"
	"github.com/lockkit/lockkit/reentrant"
)

// Mutex is a reentrant lock on Redis that is handed out in the order
// callers started waiting for it, across goroutines and processes. It is
// the [reentrant.Mutex] type, with the same methods, errors, watchdog,
// lost signal and fencing tokens; what differs is how Lock and TryLock
// take the hold (see New).
type Mutex = reentrant.Mutex

// New returns the fair lock name of client c for a new owner. It does no
// I/O and cannot fail: invalid arguments (a nil client, an empty name, a
// bad option) make every method return an error matching
// [lockkit.ErrInvalid]. A fair lock cannot share its name with a lock of
// another kind: the second finds the name used ([lockkit.ErrWrongKind]).
//
// The Mutex's Lock joins the end of the lock's queue in Redis when the
// lock is held or others already wait, and blocks until every waiter
// ahead has had its turn and the lock is free, or until ctx ends. If the
// owner holds the lock already, Lock re-enters at once, past the queue.
// While it waits, Lock renews its place every third of the waiter timeout
// ([WithWaiterTimeout]); the release that makes it first in line wakes it,
// and no other waiter. When ctx ends first, Lock takes the owner out of
// the queue before it returns (waking the next waiter if it was first in
// line for a free lock; in the background if the server does not answer
// within 100 ms), and the error matches both
// [lockkit.ErrNotObtained] and ctx.Err(). TryLock never joins the queue
// and never jumps it: it fails while the lock is held or anyone waits,
// unless the owner holds the lock already, in which case it re-enters.
// Unlock and ForceUnlock wake the first waiter in the queue, and only it.
//
// With [lockkit.WithoutReentry] the owner does not re-enter: its Lock
// joins the queue behind its own hold (and whoever waits already) and its
// TryLock fails. Goroutines waiting as one owner share one place in the
// queue; when one of them takes the lock, the others re-enter it, or, with
// WithoutReentry, queue again at the end.
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *Mutex {
	q := &queue{}
	fair := func(o *config.Options) {
		o.Kind = config.Fair
		o.Strategy = q
	}
	return reentrant.New(c, name, append([]lockkit.Option{fair}, opts...)...)
}

// queue is how a fair lock takes its hold: fair's scripts, and a waiter on
// the owner's own channel, woken only when the owner is first in line.
type queue struct {
	waiter core.Queue
	keys   []string // the KEYS of every script
	chans  string   // prefix of the waiters' own channels, PREFIX:{NAME}:ch:

	// place names the owner's place in the queue, which every Mutex of
	// the Client with the owner's id shares; the last goroutine waiting
	// there to give up leaves the queue.
	place place.Key

	// contended is set when a Lock had to wait: the next one then
	// subscribes before its first attempt (see core.Queue).
	contended atomic.Bool

	// reenter is false for a non-reentrant lock (lockkit.WithoutReentry):
	// every acquire then tells the script to refuse the owner's own hold.
	reenter bool
}

// Setup implements core.Strategy.
func (q *queue) Setup(x *core.Exclusive) {
	cfg := &x.Cfg
	k := cfg.Keys
	q.chans = k.Chan("ch") + ":"
	q.reenter = !cfg.NoReentry
	q.place = place.Key{Client: cfg.Client, Lock: k.Base, Owner: cfg.Owner}
	q.keys = []string{k.Base, k.Fence, k.Released, k.Sub("waiters"), k.Sub("timeouts")}
	q.waiter = core.Queue{
		Notifier:  cfg.Client.Notifier(),
		Channel:   q.chans + cfg.Owner,
		Heartbeat: cfg.WaiterTimeout / 3,
		Contended: &q.contended,
	}
	x.Force, x.ForceKeys, x.ForceArgs = scripts.Force, q.keys, []any{q.chans}
	x.H = core.NewHolder(core.Spec{
		Config:      cfg,
		Hold:        cfg.Owner,
		Keys:        q.keys,
		RenewKeys:   q.keys[:1],
		Acquire:     scripts.Acquire,
		Release:     scripts.Release,
		Renew:       scripts.Renew,
		Undo:        scripts.Undo,
		AcquireArgs: []any{cfg.WaiterTimeout.Milliseconds(), q.chans},
		ReleaseArgs: []any{q.chans},
		UndoArgs:    []any{q.chans},
		Late:        func() { q.leaveLate(x) },
	})
}

// Lock implements core.Strategy: re-entry at once, else the wait in the
// queue. A non-reentrant lock's owner queues behind its own hold.
func (q *queue) Lock(ctx context.Context, x *core.Exclusive) error {
	if q.reenter && x.H.Live() != nil {
		// Re-entry is immediate: the owner must not queue behind waiters
		// that wait for it.
		if ok, err := q.TryLock(ctx, x); ok || err != nil {
			return err
		}
	}
	return q.wait(ctx, x)
}

// TryLock implements core.Strategy: one attempt that never joins the
// queue.
func (q *queue) TryLock(ctx context.Context, x *core.Exclusive) (bool, error) {
	ok, _, err := x.H.Attempt(ctx, "lock", q.args(tryOnly)...)
	if errors.Is(err, lockkit.ErrClosed) {
		// An attempt that re-entered a hold lost to Close takes it back,
		// which puts the owner back first in line when the hold was taken
		// from the queue, and the closed Client refuses the attempt made
		// anew: take the entry out, unless a goroutine waits as the owner.
		x.Cfg.Client.Go(func() { q.leaveLate(x) })
	}
	return ok, core.CtxError(ctx, x.Cfg.Name, err)
}

// args returns an attempt's arguments to acquire.lua beyond the standard
// ones: whether it joins the queue (ARGV[6]) and, for a non-reentrant
// lock, ARGV[7].
func (q *queue) args(join string) []any {
	if q.reenter {
		return []any{join}
	}
	return []any{join, "1"}
}
