// Package reentrant provides [Mutex], a reentrant distributed lock on Redis,
// woken by pub/sub and kept alive by a watchdog.
//
// It is the distributed counterpart of [sync.Mutex], except that the owner is
// the value returned by [New], not a goroutine, and that the owner may lock
// again while it holds the lock (each Lock needs its Unlock). Every lock is
// made from a [github.com/lockkit/lockkit.Client], which owns the pub/sub
// connection and the watchdog its locks share. [Mutex] is also the type of
// the spin and fair locks, which take their hold another way: for strict
// first-come first-served hand-off see package fair; for shared readers see
// package rwlock.
//
// # Without re-entry
//
// With lockkit.WithoutReentry the lock does not re-enter, as [sync.Mutex]:
// a Lock by the owner that holds it waits for that hold to be released
// (or to run out) like any other owner's Lock, TryLock fails, and the hold
// count stays at 1. One Mutex can then be shared by goroutines that must
// exclude each other; a goroutine that locks twice waits until its ctx
// ends. The acquire script refuses the owner's own hold (one more
// argument, no extra round trip), so values sharing an owner id
// (lockkit.WithOwner), in one process or many, are one owner that cannot
// re-enter: while any of them holds the lock, a Lock by any of them waits.
//
// # Redis layout
//
// The lock is one hash, PREFIX:{NAME}: field = owner id, value = hold count;
// ':t:OWNER' = the hold's fencing token, ':u:OWNER' = the ids of its
// latest partial unlocks (so that a retried Unlock counts once),
// ':a:OWNER' = the ids of its latest acquires (so that a re-sent acquire
// counts once and an acquire whose reply was lost can be undone),
// ':m:OWNER' = who holds it (lockkit.WithHolderInfo), ':kind' =
// 'reentrant' (a lock of another kind with the same name is refused with
// ErrWrongKind). The fencing counter PREFIX:{NAME}:fence holds the last
// token minted (the larger of the counter + 1 and the server time in µs);
// a key PREFIX:{NAME}:released:TOKEN remembers a released token for 10 s,
// for a retried Unlock. The processes that wait register
// in the sorted set PREFIX:{NAME}:procs (by when they registered), and
// PREFIX:{NAME}:turn names, for 100 ms at most, the process a free lock is
// kept for. Releases are published on PREFIX:{NAME}:ch:ID, ID being the
// waiting process's (its Client's notifier's), or on PREFIX:{NAME}:ch on a
// Cluster. The {NAME} hash tag keeps every key and channel in one Cluster
// slot.
//
// # Waiting
//
// Lock first tries without subscribing, so an uncontended lock costs one
// round trip. On contention it subscribes through the Client's notifier
// (package notify), waits for Redis to confirm, tries again, and then
// sleeps until a release wakes it or the holder's lease runs out, whichever
// comes first. Only the head of each waiting process keeps that timer; a
// waiter sends nothing while it sleeps (the notifier's one connection is
// checked with a PING after each health interval in which nothing came).
//
// A release wakes one process, not every process that waits. A refused
// attempt registers its process (the Client) as waiting, in the same round
// trip; each process sleeps on a channel of its own, and within a process
// the waiters form a FIFO whose head alone is woken. A release wakes the
// process that registered first, skipping one that no longer listens (it
// exited, or its waiters gave up), and keeps the free lock for it for up to
// 100 ms, so that a process that unlocks and locks again at once does not
// take it back from the one it woke; a woken process whose waiters all
// left hands the turn to the next. So an acquisition costs about three
// commands (a refused attempt, the acquire, the release) however many
// processes wait, and processes take turns. A TryLock of another process
// fails during those 100 ms. On a Cluster client the same holds through
// shard channels (Redis 7), subscribed at the master of the lock's slot;
// before Redis 7, or on a client that reads from replicas (ReadOnly,
// RouteByLatency, RouteRandomly) or a Ring, where a publish cannot tell
// whether a process still listens, each release wakes one waiter in every
// waiting process.
//
// # Cohort mode
//
// With [WithLocalHandoff] the owner in Redis is the process (the Client's
// cohort for the lock), and the hold is lent from Mutex to Mutex of that
// Client: an Unlock that ends a hold while another Mutex of the Client
// waits in Lock hands the hold over in memory, sending nothing, up to a
// number of hand-overs in a row and a time since the hold was taken from
// Redis; then the hold is released in Redis and another process has its
// turn. Within the process the waiters queue in memory in arrival order,
// and only the first of them waits in Redis. A hand-over keeps the fencing
// token of the Redis hold: tokens increase from one Redis hold to the
// next, not from one local holder to the next.
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
// stale tokens when that matters.
package reentrant
