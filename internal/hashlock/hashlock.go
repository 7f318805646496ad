// Package hashlock is the reentrant hash lock the exclusive lock kinds
// share: one hash per lock, field = owner id, value = hold count, with a
// fencing token minted on every fresh hold. It makes single attempts and
// releases; how to wait between attempts is up to the lock kind.
package hashlock

import (
	"context"
	_ "embed"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/watchdog"
)

// ReleaseWindow is how long a released token is remembered, so that a
// retried Unlock whose first reply was lost reports success.
const ReleaseWindow = 10 * time.Second

var (
	//go:embed acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(acquireLua)

	//go:embed release.lua
	releaseLua    string
	releaseScript = redis.NewScript(releaseLua)

	//go:embed renew.lua
	renewLua    string
	renewScript = redis.NewScript(renewLua)

	//go:embed forceunlock.lua
	forceLua    string
	forceScript = redis.NewScript(forceLua)

	//go:embed undo.lua
	undoLua    string
	undoScript = redis.NewScript(undoLua)
)

// undoTimeout bounds the clean-up after an acquire whose outcome is
// unknown; it runs on a context not cancelled with the caller's.
const undoTimeout = 2 * time.Second

// Lock is one owner's handle on a hash lock.
type Lock struct {
	client  redis.UniversalClient
	name    string
	keys    internal.Keys
	opts    internal.Options
	channel string // where releases are published; empty for none
	holder  *internal.Holder

	// op serialises this owner's acquires and releases, so the holder stays
	// in step with Redis when several goroutines share the owner.
	op sync.Mutex
}

// New returns the hash lock name for the owner in opts, which must have
// been validated. Releases are published on the lock's channel when
// publish is true.
func New(client redis.UniversalClient, name string, opts internal.Options, publish bool) *Lock {
	l := &Lock{client: client, name: name, keys: internal.NewKeys(opts.Prefix, name), opts: opts}
	if publish {
		l.channel = l.keys.Channel
	}
	var wd *watchdog.Watchdog
	if opts.Watched() {
		wd = watchdog.For(client)
	}
	ttl := opts.TTL()
	l.holder = internal.NewHolder(name, ttl, wd, func(token int64) watchdog.Lease {
		return RenewLease(l.keys.Lock, opts.Owner, token, ttl)
	})
	return l
}

// RenewLease returns the watchdog lease that renews owner's hold with token
// on the hash lock at key, ttl at a time. Lock kinds that keep this layout
// (field = owner id, ':token') but take the lock by rules of their own
// renew their holds with it.
func RenewLease(key, owner string, token int64, ttl time.Duration) watchdog.Lease {
	return watchdog.Lease{
		Script: renewScript,
		Keys:   []string{key},
		Args:   []any{owner, token, ttl.Milliseconds()},
		TTL:    ttl,
	}
}

// Keys returns the lock's Redis names.
func (l *Lock) Keys() internal.Keys { return l.keys }

// Attempt tries once to take or re-enter the lock. It returns the remaining
// lease of the hold that blocks it, or of its own new hold (see
// internal.Attempt).
func (l *Lock) Attempt(ctx context.Context) (bool, time.Duration, error) {
	l.op.Lock()
	defer l.op.Unlock()
	pre := l.holder.Prepare()
	sent := time.Now()
	res, err := acquireScript.Run(ctx, l.client, []string{l.keys.Lock, l.keys.Fence},
		l.opts.Owner, l.opts.TTL().Milliseconds()).Int64Slice()
	if err == nil && len(res) != 2 {
		err = errors.New("unexpected reply from acquire script")
	}
	if err != nil {
		l.holder.Abort(pre)
		l.undo(ctx)
		return false, 0, internal.Op("lock", l.name, err)
	}
	if res[0] == 0 {
		l.holder.Abort(pre)
		return false, PTTLWait(res[1]), nil
	}
	l.holder.Acquired(pre, res[1], sent)
	return true, l.opts.TTL(), nil
}

// undo cuts this owner's hold in Redis back to what the holder knows of,
// after an acquire whose reply was lost (its ctx ended in flight, say): it
// may have run and taken or re-entered the lock. Without this a fresh hold
// nobody knows of would block every waiter for a whole lease. Only an owner
// id chosen for this value is undone; a shared one may be another's. l.op
// held.
func (l *Lock) undo(ctx context.Context) {
	if !l.opts.OwnOwner {
		return
	}
	var token, count int64
	if h := l.holder.Live(); h != nil {
		token, count = h.Token, h.Count
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	// If this fails too, the stray hold expires with its lease.
	_ = undoScript.Run(ctx, l.client, []string{l.keys.Lock}, l.opts.Owner, token, count, l.channel).Err()
}

// PTTLWait turns a PTTL reply into an internal.Attempt wait: -2 (the key
// just vanished) means try again now, -1 (no expiry) means no bound.
func PTTLWait(pttl int64) time.Duration {
	switch {
	case pttl == -2:
		return 0
	case pttl < 0:
		return -1
	}
	return time.Duration(pttl) * time.Millisecond
}

// Unlock undoes one acquire of this owner; see reentrant.Mutex.Unlock.
func (l *Lock) Unlock(ctx context.Context) error {
	l.op.Lock()
	defer l.op.Unlock()
	return l.holder.Release(ctx, "unlock", l.release)
}

func (l *Lock) release(ctx context.Context, h *internal.Hold, id string) (int64, error) {
	return releaseScript.Run(ctx, l.client, []string{l.keys.Lock, l.keys.Released},
		l.opts.Owner, h.Token, id, ReleaseWindow.Milliseconds(), l.channel).Int64()
}

// ForceUnlock deletes the lock whoever holds it and wakes every waiter. It
// reports whether a hold was removed.
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	l.op.Lock()
	defer l.op.Unlock()
	var n int64
	err := l.holder.Suspended(func() (err error) {
		n, err = forceScript.Run(ctx, l.client, []string{l.keys.Lock}, l.channel).Int64()
		return err
	})
	if err != nil {
		return false, internal.Op("force unlock", l.name, err)
	}
	return n == 1, nil
}

// IsLocked reports whether any owner holds the lock.
func (l *Lock) IsLocked(ctx context.Context) (bool, error) {
	return IsLocked(ctx, l.client, l.name, l.keys.Lock)
}

// HoldCount returns how many times this owner holds the lock in Redis.
func (l *Lock) HoldCount(ctx context.Context) (int, error) {
	return HoldCount(ctx, l.client, l.name, l.keys.Lock, l.opts.Owner)
}

// TTL returns the lock's remaining lease, or 0 when it is free.
func (l *Lock) TTL(ctx context.Context) (time.Duration, error) {
	return TTL(ctx, l.client, l.name, l.keys.Lock)
}

// IsLocked reports whether any owner holds the hash lock name at key.
// IsLocked, HoldCount and TTL serve the lock kinds that keep this layout
// but take the lock by rules of their own.
func IsLocked(ctx context.Context, c redis.Cmdable, name, key string) (bool, error) {
	n, err := c.Exists(ctx, key).Result()
	if err != nil {
		return false, internal.Op("is locked", name, err)
	}
	return n == 1, nil
}

// HoldCount returns how many times owner holds the hash lock name at key.
func HoldCount(ctx context.Context, c redis.Cmdable, name, key, owner string) (int, error) {
	n, err := c.HGet(ctx, key, owner).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, internal.Op("hold count", name, err)
	}
	return n, nil
}

// TTL returns the remaining lease of the hash lock name at key, or 0 when
// it is free.
func TTL(ctx context.Context, c redis.Cmdable, name, key string) (time.Duration, error) {
	d, err := c.PTTL(ctx, key).Result()
	if err != nil {
		return 0, internal.Op("ttl", name, err)
	}
	return max(d, 0), nil
}

// Token returns the fencing token of this owner's live hold, or 0.
func (l *Lock) Token() int64 { return l.holder.Token() }

// Lost returns the current hold's lost signal; nil when nothing is held.
func (l *Lock) Lost() <-chan struct{} { return l.holder.Lost() }
