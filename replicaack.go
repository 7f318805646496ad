package lockkit

import (
	"time"

	"github.com/lockkit/lockkit/internal/config"
)

// WithReplicaAck makes every fresh hold wait, before Lock or TryLock
// returns it, until n replicas of the Redis master that keeps the lock
// have acknowledged it, for at most timeout (Redis WAIT). A failover that
// promotes one of those replicas then keeps the hold. Use it on Sentinel
// or Cluster deployments whose failovers must not hand a held lock to
// someone else; it costs two round trips per fresh hold. A re-entry waits
// alike when the lease is fixed ([WithLease]), since it moves the lease's
// end, which no renewal moves again: a failover that lost the move would
// end the hold before the holder expects it. A re-entry of a renewed hold
// does not wait (the watchdog renews the lease at the new master).
//
// When fewer than n acknowledge in time, the hold is undone and the call
// returns an error matching [ErrReplicaAck] that says how many did; if the
// undo gets no answer, it is asked again in the background until Redis
// answers or the Client closes. When the master has
// had no replica for a long while (none attached, and no replication
// backlog: none ever, or none for its repl-backlog-ttl, an hour by
// default), there is nothing to wait for and no replica a failover could
// promote: the acknowledgement is skipped and the call returns as without
// this option. A master whose replicas are cut off is waited for, and so
// fails with ErrReplicaAck: they may be down and come back, still
// syncing, or already promoted by a failover it has not heard of, and
// each could take over without the hold. A replica that acknowledged can
// still lose the hold if it is not the one promoted, so n should count
// every replica that may be.
//
// The call's ctx bounds the wait: when it ends first, the hold is undone
// and the call returns at once, with an error matching [ErrNotObtained]
// and ctx.Err(); the WAIT itself runs out in the background (go-redis
// does not end it with ctx), for at most timeout, and [Client.Close]
// waits for it.
//
// On a Cluster, the master asked is the one the client's slot map names;
// where that node answers MOVED (the acquire itself followed the slot to a
// new master, after a move or a failover, before the map did), the map is
// read again and the master it then names is asked.
//
// It applies to reentrant, fair, spin and read-write locks (given to a
// semaphore, an election, a latch or a RedLock, it is ErrInvalid), and as
// a Client default, which those other kinds pass over: they take their
// holds as without it. It works on a Client of a *redis.Client (plain or
// failover) or a *redis.ClusterClient: with another go-redis client (a
// Ring, say) every fresh hold is undone and the call fails with an error
// saying so. n must be at least 1 and timeout at least 1 ms. Default: no acknowledgement
// asked (Redis replicates asynchronously, and a failover right after Lock
// returned may lose the hold).
func WithReplicaAck(n int, timeout time.Duration) Option {
	return func(o *config.Options) {
		if !o.For("WithReplicaAck", true, config.Reentrant, config.Fair, config.Spin, config.RW) {
			return
		}
		switch {
		case n < 1:
			o.Fail("WithReplicaAck", "replica count must be at least 1, got %d", n)
		case timeout <= 0 || timeout.Milliseconds() < 1:
			o.Fail("WithReplicaAck", "timeout must be at least 1ms, got %v", timeout)
		default:
			o.ReplicaAcks, o.ReplicaAckTimeout = n, timeout
		}
	}
}
