package core

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
)

// Exclusive is what the exclusive kinds that keep one hold per owner in a
// hash (reentrant, spin, fair) share beyond how they wait: release, force
// unlock and the queries. A kind keeps one and forwards its methods to it.
// Every method is safe on a nil *Exclusive (a nil lock value): it reports
// ErrInvalid, or 0 and nil for Token and Lost.
type Exclusive struct {
	Base
	H *Holder
	// Force frees the lock whoever holds it; it gets ForceKeys and
	// ForceArgs, after a force id and its window (see core.ForceArgs), and
	// returns 1 when a hold was removed (also to a re-send), 0 when none
	// was.
	Force     *redis.Script
	ForceKeys []string
	ForceArgs []any
	// Forced, if not nil, is called when a ForceUnlock removed a hold,
	// also when its reply comes after its ctx ended, or may have (its
	// reply was lost).
	Forced func()
}

// base returns x's Base, or nil for a nil x.
func (x *Exclusive) base() *Base {
	if x == nil {
		return nil
	}
	return &x.Base
}

// Strategy is how an exclusive kind takes its hold: its scripts, how its
// callers wait, and what a failed wait leaves to clean up. Release, force
// unlock and the queries are the same for every such kind (Exclusive).
type Strategy interface {
	// Setup completes x for the lock x.Cfg describes: its Holder, and its
	// Force script, keys and args.
	Setup(x *Exclusive)
	// Lock takes the hold, waiting as the kind does, until ctx ends.
	Lock(ctx context.Context, x *Exclusive) error
	// TryLock tries once, without waiting.
	TryLock(ctx context.Context, x *Exclusive) (bool, error)
}

// Check is Base.Check, safe on a nil x.
func (x *Exclusive) Check(ctx context.Context) error { return x.base().Check(ctx) }

// Unlock undoes one acquire of the owner's hold (see Holder.Release). It
// runs even on a closed Client, to free what was held.
func (x *Exclusive) Unlock(ctx context.Context) error {
	if err := x.base().CheckInput(ctx); err != nil {
		return err
	}
	return x.H.Release(ctx, "unlock")
}

// ForceUnlock runs the Force script with the owner's own hold, if any,
// suspended (see Holder.Suspended), and reports whether a hold was
// removed (see Forced).
func (x *Exclusive) ForceUnlock(ctx context.Context) (bool, error) {
	if err := x.Check(ctx); err != nil {
		return false, err
	}
	op := x.H.Op()
	if err := op.Lock(ctx); err != nil {
		return false, Op("force unlock", x.Cfg.Name, err)
	}
	defer op.Unlock()
	var n int64
	args := ForceArgs(x.ForceArgs...) // the same for every re-send
	forced := func(n int64, err error) {
		if x.Forced != nil && (n == 1 || err != nil && !isServerError(err)) {
			x.Forced()
		}
	}
	err := x.H.Suspended(func() (err error) {
		n, err = Call(ctx, x.Cfg.Client, func(ctx context.Context) (int64, error) {
			return x.Force.Run(ctx, x.Cfg.Client.Redis(), x.ForceKeys, args...).Int64()
		}, forced)
		return err
	})
	if !errors.Is(err, errNoReply) { // else its reply, when it comes, tells
		forced(n, err)
	}
	if err != nil {
		return false, Op("force unlock", x.Cfg.Name, err)
	}
	return n == 1, nil
}

// IsLocked reports whether any owner holds the lock.
func (x *Exclusive) IsLocked(ctx context.Context) (bool, error) {
	if err := x.Check(ctx); err != nil {
		return false, err
	}
	return x.Exists(ctx, x.Cfg.Keys.Base)
}

// HoldCount returns how many times the owner holds the lock in Redis.
func (x *Exclusive) HoldCount(ctx context.Context) (int, error) {
	if err := x.Check(ctx); err != nil {
		return 0, err
	}
	return x.Base.HoldCount(ctx, x.Cfg.Keys.Base, x.Cfg.Owner)
}

// TTL returns the lock's remaining lease, whoever holds it; 0 when free.
func (x *Exclusive) TTL(ctx context.Context) (time.Duration, error) {
	if err := x.Check(ctx); err != nil {
		return 0, err
	}
	return x.Base.TTL(ctx, x.Cfg.Keys.Base)
}

// Token returns the fencing token of the owner's live hold, or 0.
func (x *Exclusive) Token() int64 {
	if x == nil || x.H == nil {
		return 0
	}
	return x.H.Token()
}

// Lost returns the lost channel of the current hold; nil when nothing is
// held.
func (x *Exclusive) Lost() <-chan struct{} {
	if x == nil || x.H == nil {
		return nil
	}
	return x.H.Lost()
}

// Context returns a copy of parent that ends with the current hold (see
// Slot.Context).
func (x *Exclusive) Context(parent context.Context) context.Context {
	if x == nil || x.H == nil {
		return (*Slot)(nil).Context(parent)
	}
	return x.H.Context(parent)
}

// Name returns the lock's name, or "" for a nil lock.
func (x *Exclusive) Name() string { return x.base().Name() }

// HashLock returns the Spec of the hash lock (internal/lua's Mutex set,
// one hold per name) for the owner cfg names, publishing releases on
// channel (empty for none).
func HashLock(cfg *Config, channel string) Spec {
	k := cfg.Keys
	return Spec{
		Config:      cfg,
		Hold:        cfg.Owner,
		Keys:        []string{k.Base, k.Fence, k.Released, k.Procs, k.Turn},
		RenewKeys:   []string{k.Base},
		Acquire:     lua.Mutex.Acquire,
		Release:     lua.Mutex.Release,
		Renew:       lua.Mutex.Renew,
		Undo:        lua.Mutex.Undo,
		AcquireArgs: []any{cfg.Kind},
		ReleaseArgs: []any{channel},
		UndoArgs:    []any{channel, cfg.Kind},
	}
}

// HashLockWaiter returns how the hash lock's waiters for the lock cfg
// names wait: by pub/sub, woken by releases published on the lock's
// channel, one process per release where the server can tell whether a
// process still listens (see OneProcess).
func HashLockWaiter(cfg *Config) PubSub {
	channel := cfg.Keys.Channel
	return OneProcessWaiter(cfg.Client, channel, lua.Mutex.Pass, HashLock(cfg, channel).Keys)
}
