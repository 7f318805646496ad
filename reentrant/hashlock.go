package reentrant

import (
	"context"
	"time"

	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
)

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
