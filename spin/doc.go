// Package spin provides [Mutex], a reentrant distributed lock on Redis that
// waits by retrying with randomised exponential backoff instead of pub/sub.
//
// It keeps the contract of [github.com/lockkit/lockkit/reentrant.Mutex]
// (re-entry, watchdog, lost signal, fencing tokens) and differs only in how a
// blocked Lock waits. Use it where pub/sub is costly: on a Redis Cluster
// before Redis 7 a classic PUBLISH is forwarded to every node of the
// cluster, so a busy lock woken by pub/sub loads the whole cluster, while a
// spin lock only ever talks to the node that owns its key (from Redis 7 the
// other kinds publish on shard channels, which stay within the key's
// shard). Prefer package reentrant when locks are
// held for long and waiters are many: pub/sub wakes a waiter the moment the
// lock is free and sends nothing while it waits.
//
// # Redis layout
//
// The same as package reentrant, with ':kind' = 'spin': the lock is one
// hash, PREFIX:{NAME}, field = owner id, value = hold count, plus the hold's
// fencing token in ':t:OWNER'; the counter PREFIX:{NAME}:fence (no TTL)
// holds the last token minted (the larger of the counter + 1 and the server
// time in µs), and a key PREFIX:{NAME}:released:TOKEN remembers a
// released token for a short while so a retried Unlock is safe. The
// {NAME} hash tag keeps every key in one Cluster slot. Nothing is
// published: no channel is used, and a spin lock never SUBSCRIBEs or
// PUBLISHes.
//
// # Waiting
//
// Lock first tries once (an uncontended lock costs one round trip). While
// another owner holds the lock, the n-th failed attempt (n = 0, 1, …) is
// followed by a sleep drawn uniformly from [0, min(cap, floor·2ⁿ)) — "full
// jitter", 1 ms to 128 ms by default (see [WithBackoff]) — but never longer
// than the holder's remaining lease, which each failed attempt returns, so
// a lock that expires is retried as soon as it is free. Each Lock call keeps
// its own backoff state; nothing is shared between calls, goroutines or
// owners. The cap bounds how often a waiter asks: once it is reached a
// waiter sends on average one attempt per cap/2 (16 per second by default),
// whatever the number of waiters, and jitter spreads the attempts of many
// waiters so they do not arrive together.
//
// The price is latency and fairness: a released lock stays free until some
// waiter's sleep ends (up to cap), and the waiter that wakes first wins,
// not the one that waited longest. Use package fair for first-come
// first-served order.
//
// # Leases
//
// By default a hold has a 30 s lease that the watchdog (package watchdog)
// renews every 10 s until Unlock, so a crashed process frees the lock within
// 30 s. With lockkit.WithLease the hold has a fixed lease instead and
// expires on its own. When the watchdog finds a hold gone, the channel from
// [Mutex.Lost] is closed and Unlock returns lockkit.ErrLost.
//
// # Guarantees and limits
//
// While its lease lives, a lock has one owner, and every fresh hold gets a
// [Mutex.Token] larger than any before it for the same name, even after a
// Redis restart that lost the data, as long as the server's clock does not
// go back. A process that pauses (GC, swap, a stopped VM) for longer than
// its lease can still think it holds the lock after it expired; so can a
// holder whose Redis primary fails over before the lock was replicated.
// Pass the fencing token to the resource you protect and let it reject
// stale tokens when that matters; see package multilock for RedLock over
// independent masters.
//
// A spin lock and a reentrant lock cannot share a name and prefix: the
// second finds the name used by another kind (lockkit.ErrWrongKind), since
// a reentrant waiter would not be woken by a spin release.
package spin
