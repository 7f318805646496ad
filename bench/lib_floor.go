package main

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// floorLibrary is no lock at all: "Lock" and "Unlock" each run EVALSHA of
// `return 1`, two round trips with the least work a script can do. It
// never excludes anybody, so its throughput is the most two round trips per
// acquisition can give on this machine; every lock is compared with it.
var floorLibrary = goRedisLibrary("floor",
	"go-redis; EVALSHA `return 1` to lock and again to unlock, no exclusion",
	func(rdb *redis.Client) backend { return &floorBackend{rdb: rdb} })

// floorScript is the cheapest script: it returns 1.
var floorScript = redis.NewScript("return 1")

// floorBackend makes floorLockers.
type floorBackend struct{ rdb *redis.Client }

func (b *floorBackend) NewLocker(string) locker { return floorLocker{b.rdb} }
func (b *floorBackend) Close() error            { return b.rdb.Close() }

// floorLocker runs the script once per Lock and once per Unlock.
type floorLocker struct{ rdb *redis.Client }

func (l floorLocker) Lock(ctx context.Context) error {
	return floorScript.Run(ctx, l.rdb, nil).Err()
}

func (l floorLocker) Unlock(ctx context.Context) error {
	return floorScript.Run(ctx, l.rdb, nil).Err()
}
