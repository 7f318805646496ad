package main

import (
	"fmt"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
	"github.com/redis/go-redis/v9"
)

// lockkitLibrary is one of lockkit's kinds with default options: one
// lockkit.Client per process over a go-redis client, one lock value (one
// owner) per goroutine and name. For rwlock only the write side is used.
func lockkitLibrary(kind string) library {
	return goRedisLibrary(kind,
		fmt.Sprintf("lockkit `%s.New(lockkit.New(rdb), name)`, defaults (watchdog lease 30 s)", kind),
		func(rdb *redis.Client) backend {
			return &lockkitBackend{kind: kind, rdb: rdb, locks: lockkit.New(rdb)}
		})
}

// cohortHandoffs and cohortHold are the bounds of reentrant-cohort's
// local hand-overs.
const (
	cohortHandoffs = 64
	cohortHold     = 10 * time.Millisecond
)

// lockkitCohortLibrary is the reentrant lock in cohort mode: the
// goroutines of a process hand the hold over in memory, up to
// cohortHandoffs times in a row or for cohortHold.
var lockkitCohortLibrary = goRedisLibrary("reentrant-cohort",
	fmt.Sprintf("lockkit `reentrant.New(lockkit.New(rdb), name, reentrant.WithLocalHandoff(%d, %v))`: cohort mode, hand-overs in memory between the goroutines of a process", cohortHandoffs, cohortHold),
	func(rdb *redis.Client) backend {
		return &lockkitBackend{kind: "reentrant-cohort", rdb: rdb, locks: lockkit.New(rdb)}
	})

// lockkitBackend makes locks of one kind from one Client.
type lockkitBackend struct {
	kind  string
	rdb   *redis.Client
	locks *lockkit.Client
}

func (b *lockkitBackend) NewLocker(name string) locker {
	switch b.kind {
	case "reentrant":
		return reentrant.New(b.locks, name)
	case "reentrant-cohort":
		return reentrant.New(b.locks, name, reentrant.WithLocalHandoff(cohortHandoffs, cohortHold))
	case "fair":
		return fair.New(b.locks, name)
	case "spin":
		return spin.New(b.locks, name)
	case "rwlock":
		return rwlock.New(b.locks, name)
	}
	panic("unknown lockkit kind " + b.kind)
}

func (b *lockkitBackend) Close() error {
	err := b.locks.Close()
	if cerr := b.rdb.Close(); err == nil {
		err = cerr
	}
	return err
}
