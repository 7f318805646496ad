// Package notify wakes goroutines waiting for Redis locks through pub/sub.
//
// A [Notifier] ([New]) keeps one go-redis PubSub connection (on a Cluster,
// one per master for shard channels, below), shared by every lock and
// waiter that uses it (a lockkit.Client owns one); [Notifier.Close]
// closes it for good. Per channel it keeps a refcounted
// subscription and a FIFO of local waiters: the first waiter subscribes (and
// waits for Redis to confirm it), and the channel is unsubscribed 100 ms
// after the last one left unless a waiter came back (so a worker locking in
// a loop does not subscribe anew each time); the connection itself is
// closed, with its goroutine, when no channel is left.
//
// A channel whose name begins with [ShardMark] is a shard channel, which
// the Notifier subscribes with SSUBSCRIBE where the server has sharded
// pub/sub (Redis 7; SUBSCRIBE before). On a Cluster a shard channel is
// served by the master of its slot alone, so the Notifier keeps one
// connection per master it waits at; when the server drops such a
// subscription (its slot moved to another shard) or refuses it (a slot map
// out of date), or the Cluster client's slot map names another master for
// its slot (a failover, checked every health interval), the Notifier
// subscribes again on a new connection and wakes that connection's
// waiters to re-check. On a Ring client, where a channel is published at
// the shard its name maps to, the Notifier keeps one connection per shard
// it waits at, and subscribes each channel at its shard.
//
// Releases publish one of two messages on a channel. [WakeOne] wakes the
// head of the local FIFO; [WakeAll] wakes every waiter (read-write locks,
// force unlock). A wake-up that arrives before its waiter sleeps is kept,
// and a woken waiter that leaves without the lock passes it on to the
// next.
//
// A waker can address one process rather than all: each Notifier has an
// [Notifier.ID], and its waiters may sleep on a channel of their own that
// ends with it (lockkit's reentrant locks register the process in Redis
// and a release wakes the process that waited longest). A wake-up such a
// process cannot use, because its waiters all left, is handed to the
// function set by [PassOn], which gives the turn to another process; and
// [Standby] tells the processes next in line when to try if the woken one
// never takes its turn. After
// the connection breaks every waiter is woken, and woken again when its
// channel is subscribed anew, because messages may have been lost meanwhile.
//
// The head of each FIFO also bounds its wait by the lock's remaining lease
// (see [Waiter.WaitTurn]); the next waiter takes that timer over when the
// head leaves. So a lost message delays the queue by at most one lease, and
// the waiters behind the head send nothing while they sleep.
package notify
