package main

import (
	"context"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// redsyncLibrary is go-redsync/redsync over one go-redis pool, with its
// defaults: SET NX PX with an 8 s expiry, up to 32 tries spaced 50–250 ms
// at random. When the 32 tries fail, the benchmark calls Lock again and the
// wait goes on.
var redsyncLibrary = goRedisLibrary("redsync",
	"redsync v4 over go-redis, defaults (8 s expiry, 32 tries 50–250 ms apart; Lock is called again after ErrFailed)",
	func(rdb *redis.Client) backend {
		return &redsyncBackend{rdb: rdb, rs: redsync.New(goredis.NewPool(rdb))}
	})

// redsyncBackend makes redsync mutexes from one Redsync.
type redsyncBackend struct {
	rdb *redis.Client
	rs  *redsync.Redsync
}

func (b *redsyncBackend) NewLocker(name string) locker {
	return redsyncLocker{b.rs.NewMutex(name)}
}

func (b *redsyncBackend) Close() error { return b.rdb.Close() }

// redsyncLocker adapts a redsync.Mutex.
type redsyncLocker struct{ m *redsync.Mutex }

func (l redsyncLocker) Lock(ctx context.Context) error { return l.m.LockContext(ctx) }

func (l redsyncLocker) Unlock(ctx context.Context) error {
	_, err := l.m.UnlockContext(ctx)
	return err
}
