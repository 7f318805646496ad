package fair

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// ScriptName returns the name of the fair-lock script cmd runs ("acquire",
// "release", "renew", "undo", "leave" or "force"), or "" when cmd runs none
// of them. It recognises both EVALSHA and the EVAL go-redis falls back to.
func ScriptName(cmd redis.Cmder) string {
	for name, s := range map[string]*redis.Script{
		"acquire": scripts.Acquire, "release": scripts.Release, "renew": lua.Mutex.Renew,
		"undo": scripts.Undo, "leave": leaveScript, "force": scripts.Force,
	} {
		if redistest.RunsScript(cmd, s) {
			return name
		}
	}
	return ""
}

// JoinQueue queues owners at the end of the wait queue of lock name (with
// the default prefix), in order, as the first attempts of Locks with
// waiter timeout wt would: the acquire script with join, sent in one
// pipeline. The lock should be held, or the first owner takes it.
func JoinQueue(ctx context.Context, c redis.UniversalClient, name string, owners []string, wt time.Duration) error {
	if err := scripts.Acquire.Load(ctx, c).Err(); err != nil {
		return err
	}
	keys, chans := scriptKeys(name)
	pipe := c.Pipeline()
	for i, owner := range owners {
		args := []any{owner, lockkit.DefaultWatchdogTimeout.Milliseconds(), fmt.Sprintf("join%d", i), wt.Milliseconds(), chans, joinQueue}
		scripts.Acquire.EvalSha(ctx, pipe, keys, args...)
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Queue returns the owner ids waiting for lock name (with the default
// prefix), oldest first.
func Queue(ctx context.Context, c redis.UniversalClient, name string) ([]string, error) {
	keys, _ := scriptKeys(name)
	return c.ZRange(ctx, keys[3], 0, -1).Result()
}

// scriptKeys returns the KEYS of lock name's scripts and the prefix of its
// waiters' channels.
func scriptKeys(name string) ([]string, string) {
	k := core.NewKeys(lockkit.DefaultPrefix, name, false)
	return []string{k.Base, k.Fence, k.Released, k.Sub("waiters"), k.Sub("timeouts")}, k.Sub("ch") + ":"
}
