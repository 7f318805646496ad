package main

import (
	"context"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"
)

// redislockTTL is the lease of a bsm/redislock lock; it has no watchdog,
// so it is set as long as redsync's expiry.
const redislockTTL = 8 * time.Second

// redislockLibrary is bsm/redislock over go-redis. Its default is not to
// retry at all; the benchmark gives it the exponential backoff its docs
// recommend, 16 ms doubling up to 128 ms (lockkit's spin backs off from
// 1 to 128 ms).
var redislockLibrary = goRedisLibrary("redislock",
	"bsm/redislock over go-redis, 8 s TTL, `ExponentialBackoff(16ms, 128ms)`",
	func(rdb *redis.Client) backend {
		return &redislockBackend{rdb: rdb, c: redislock.New(rdb)}
	})

// redislockBackend makes lockers from one redislock.Client.
type redislockBackend struct {
	rdb *redis.Client
	c   *redislock.Client
}

func (b *redislockBackend) NewLocker(name string) locker {
	return &redislockLocker{c: b.c, name: name}
}

func (b *redislockBackend) Close() error { return b.rdb.Close() }

// redislockLocker obtains and releases one key.
type redislockLocker struct {
	c    *redislock.Client
	name string
	held *redislock.Lock
}

func (l *redislockLocker) Lock(ctx context.Context) error {
	lk, err := l.c.Obtain(ctx, l.name, redislockTTL, &redislock.Options{
		// A strategy counts its calls, so every Obtain needs a new one.
		RetryStrategy: redislock.ExponentialBackoff(16*time.Millisecond, 128*time.Millisecond),
	})
	if err != nil {
		return err
	}
	l.held = lk
	return nil
}

func (l *redislockLocker) Unlock(ctx context.Context) error {
	lk := l.held
	l.held = nil
	return lk.Release(ctx)
}
