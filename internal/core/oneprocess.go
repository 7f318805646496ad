package core

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// OneProcessWaiter returns how the waiters of client c wait for releases
// published on channel: one process woken per release where c's server
// can tell whether a process still listens (see OneProcess), its waiters
// on their process's own channel, and a wake-up the process cannot use
// handed on by the script pass (run with keys and channel); else one
// waiter per process, on channel.
func OneProcessWaiter(c *lockkit.Client, channel string, pass *redis.Script, keys []string) PubSub {
	w := PubSub{Notifier: c.Notifier(), Channel: SleepChannel(c, channel)}
	if w.Channel != channel {
		w.PassOn = func() {
			ctx, cancel := Detached(context.Background())
			defer cancel()
			// If this fails, the waiters left time their wait by the
			// holder's lease and try again then.
			_, _ = Call(ctx, c, func(ctx context.Context) (struct{}, error) {
				return struct{}{}, pass.Run(ctx, c.Redis(), keys, channel).Err()
			}, nil)
		}
	}
	return w
}

// SleepChannel returns the channel on which the waiters of client c sleep
// for a lock whose releases are published on channel: their process's own
// where one process is woken per release (see OneProcess), else channel.
func SleepChannel(c *lockkit.Client, channel string) string {
	if OneProcess(c.Redis()) {
		return OwnChannel(channel, c.Notifier())
	}
	return channel
}

// OneProcess reports whether releases on rc wake one waiting process
// rather than one waiter in every process: the release script learns from
// its publish whether the process it picked still listens, which holds
// where every subscriber is connected to the server that runs the script:
// a single server, the master of a Sentinel group, or the master of the
// lock's slot on a Cluster, whose shard channels (see Sharded) are
// subscribed there unless the client reads from replicas (ReadOnly,
// RouteByLatency, RouteRandomly). On such a Cluster client, or a Ring, a
// subscriber may be connected to another node, so every process is woken
// there; so it is, by the release script, on a Cluster without sharded
// pub/sub (before Redis 7).
func OneProcess(rc redis.UniversalClient) bool {
	switch c := rc.(type) {
	case *redis.ClusterClient:
		o := c.Options()
		return !o.ReadOnly && !o.RouteByLatency && !o.RouteRandomly
	case *redis.Ring:
		return false
	}
	return true
}
