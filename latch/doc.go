// Package latch provides [Latch], a countdown latch on Redis: it opens
// once [Latch.CountDown] has been called a given number of times, by any
// processes, and [Latch.Await] blocks until it is open, woken by pub/sub.
// It is the distributed counterpart of waiting on a [sync.WaitGroup]
// (Redisson's RCountDownLatch): a coordinator awaits N workers, or N
// services await one start signal (a latch of 1). A latch opens once and
// stays open; it is not a lock, and has no owner, hold or lease.
//
// # Redis layout
//
// A latch is one hash, PREFIX:{NAME}: ':kind' = 'latch' (a lock of
// another kind with the same name is refused with ErrWrongKind), 'count' =
// the count left, and ':d:ID' for each count-down made, so that one the
// client re-sends after a lost reply counts once. The hash is created by
// the first count-down, with the count given to [New]; the one that
// reaches zero drops the ids, keeps 'count' = 0 and publishes '*' on
// PREFIX:{NAME}:ch. The {NAME} hash tag keeps the hash and the channel in
// one Cluster slot.
//
// # Waiting
//
// Await reads the count; while it is not zero it subscribes to the
// latch's channel through the Client's notifier (package notify), waits
// for Redis to confirm, reads again, and then sleeps until a message comes
// and reads again. Every waiter of every process is woken by the opening
// count-down; none polls. When the notifier's connection breaks, every
// waiter reads again once it is back, since a message may have been lost.
//
// # Expiry
//
// Nothing lives without a TTL: the hash expires [WithExpiry] (24 h by
// default) after its last count-down, so a latch whose counters died is
// eventually forgotten, and so is an open latch. A forgotten latch starts
// afresh with its count: its waiters keep waiting (bound Await with ctx),
// and a waiter that comes after an open latch expired waits for a new
// round of count-downs.
//
// # Guarantees and limits
//
// Await returns only after the count reached zero in Redis, and every
// waiter present then returns. A count-down whose reply was lost may or
// may not have counted (read [Latch.Count]). A Redis restart without
// persistence, or a failover before the hash was replicated, loses the
// count-downs made so far: the latch starts afresh, and its waiters wait
// for a full count again.
package latch
