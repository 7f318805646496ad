package core

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// Base is what every lock value starts from: its resolved configuration,
// or the error New found in its arguments.
type Base struct {
	Cfg Config
	Err error // invalid arguments, reported by every method
}

// NewBase resolves a lock value of kind (see Resolve).
func NewBase(c *lockkit.Client, kind, name string, opts []lockkit.Option) Base {
	cfg, err := Resolve(c, kind, name, opts)
	return Base{Cfg: cfg, Err: err}
}

// Check returns the error every method of the lock returns before it
// sends anything: for a nil or zero-value lock (not made by New), a nil
// ctx, invalid arguments to New, or a closed Client. A kind passes nil
// for b when its lock value is nil.
func (b *Base) Check(ctx context.Context) error {
	if err := b.CheckInput(ctx); err != nil {
		return err
	}
	if err := b.Cfg.Client.Err(); err != nil {
		return Op("use", b.Cfg.Name, err)
	}
	return nil
}

// CheckInput is Check without the Client's state: a release still runs on
// a closed Client, to free what it held.
func (b *Base) CheckInput(ctx context.Context) error {
	switch {
	case b == nil || (b.Err == nil && b.Cfg.Client == nil):
		return Invalid("lock not made by its New (nil or zero value)")
	case b.Err != nil:
		return b.Err
	case ctx == nil:
		return Invalid("%q: nil context", b.Cfg.Name)
	}
	return nil
}

// Name returns the lock's name, or "" for a nil lock.
func (b *Base) Name() string {
	if b == nil {
		return ""
	}
	return b.Cfg.Name
}

// Exists reports whether key exists: whether any owner holds a lock whose
// hash is key.
func (b *Base) Exists(ctx context.Context, key string) (bool, error) {
	rc := b.Cfg.Client.Redis()
	n, err := Call(ctx, b.Cfg.Client, func(ctx context.Context) (int64, error) { return rc.Exists(ctx, key).Result() }, nil)
	if err != nil {
		return false, Op("is locked", b.Cfg.Name, err)
	}
	return n == 1, nil
}

// HoldCount returns the count of hold in the hash at key, 0 when absent.
func (b *Base) HoldCount(ctx context.Context, key, hold string) (int, error) {
	rc := b.Cfg.Client.Redis()
	n, err := Call(ctx, b.Cfg.Client, func(ctx context.Context) (int, error) { return rc.HGet(ctx, key, hold).Int() }, nil)
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, Op("hold count", b.Cfg.Name, err)
	}
	return n, nil
}

// TTL returns the remaining lease of key, or 0 when it does not exist.
func (b *Base) TTL(ctx context.Context, key string) (time.Duration, error) {
	rc := b.Cfg.Client.Redis()
	d, err := Call(ctx, b.Cfg.Client, func(ctx context.Context) (time.Duration, error) { return rc.PTTL(ctx, key).Result() }, nil)
	if err != nil {
		return 0, Op("ttl", b.Cfg.Name, err)
	}
	return max(d, 0), nil
}
