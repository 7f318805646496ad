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
	try    []any // the args of a TryLock's attempt
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
	spec := core.HashLock(cfg, ch)
	x.H = core.NewHolder(spec)
	x.Force, x.ForceKeys, x.ForceArgs = lua.Mutex.Force, spec.Keys, []any{ch, cfg.Kind}
}

// Lock implements core.Strategy: re-entry at once, else the engine's wait.
func (l *hashLock) Lock(ctx context.Context, x *core.Exclusive) error {
	if x.H.Live() != nil {
		// Re-entry is immediate: the owner must not queue behind waiters
		// that wait for it.
		if ok, err := l.TryLock(ctx, x); ok || err != nil {
			return err
		}
	}
	return core.Wait(ctx, x.H.Tracer(), x.Cfg.Name, l.waiter, func(ctx context.Context, args ...any) (bool, time.Duration, error) {
		return x.H.Attempt(ctx, "lock", args...)
	})
}

// TryLock implements core.Strategy.
func (l *hashLock) TryLock(ctx context.Context, x *core.Exclusive) (bool, error) {
	ok, _, err := x.H.Attempt(ctx, "lock", l.try...)
	return ok, core.CtxError(ctx, x.Cfg.Name, err)
}
