// Package fair provides [Mutex], a reentrant distributed lock on Redis that
// is handed out strictly in the order callers started waiting for it,
// across goroutines and processes.
//
// It keeps the contract of [github.com/lockkit/lockkit/reentrant.Mutex]
// (the same methods, options, errors, watchdog, lost signal and fencing
// token, all from the engine every kind shares) and adds a queue: no
// caller can overtake one that has waited longer, and each release wakes
// exactly the next waiter. Choose it when waiters must not starve or when
// the order of turns matters; choose the reentrant lock when throughput
// matters more than order, as its releasing owner can often take the lock
// again at once, where a fair lock always hands it to the next in line
// (one more round trip per hand-off).
//
// Locks are made from a [lockkit.Client], which holds the connection for
// wake-ups and the watchdog that every lock of the Client shares:
//
//	client := lockkit.New(rdb)
//	defer client.Close()
//	m := fair.New(client, "orders:42", fair.WithWaiterTimeout(2*time.Second))
//
// # Redis layout
//
// All keys carry the {NAME} hash tag, so they live in one Cluster slot:
//
//   - PREFIX:{NAME} is the lock, a hash with one hold: field OWNER = hold
//     count, ':t:OWNER' = fencing token of the hold, ':u:OWNER' = ids of its
//     latest partial unlocks, ':q:OWNER' = the deadline of the queue entry the
//     hold was taken from, if it was (so that the undo of that acquire puts
//     the owner back first in line), and ':kind' = 'fair'. A name is one kind: a
//     reentrant, spin or read-write lock of the same name finds it used
//     and gets [lockkit.ErrWrongKind], and so does a fair lock of a name
//     another kind holds; nothing is changed;
//   - PREFIX:{NAME}:fence holds the last fencing token minted, the larger
//     of its value + 1 and the server time in µs (no TTL), and a key
//     PREFIX:{NAME}:released:TOKEN remembers a released token for a
//     while, so a retried Unlock reports the outcome of the first;
//   - PREFIX:{NAME}:waiters is the queue, a sorted set of the waiting
//     owner ids scored by arrival number (one more than the last entry's),
//     oldest first, and PREFIX:{NAME}:timeouts holds each waiter's
//     deadline (score = server time in ms); both expire with the latest
//     deadline. Joining, leaving and finding the head or the waiter ahead
//     cost O(log N) in the length N of the queue, and so does evicting
//     each dead waiter;
//   - PREFIX:{NAME}:ch:OWNER is each waiter's own wake-up channel.
//
// # Waiting
//
// Lock first tries without subscribing: a free lock with nobody waiting
// costs one round trip. Otherwise that attempt puts the owner at the end
// of the queue. Lock then subscribes to the owner's own channel through
// the Client's notifier (package notify), waits for Redis to confirm,
// tries again (a release in between is not missed) and sleeps. A waiter
// takes the lock only when it is free and the waiter is at the head of the
// queue; the re-entry of a holder is immediate and never queues. Once a
// Mutex's Lock had to wait, its later Locks subscribe before their first
// attempt, so a contended hand-off costs two acquire scripts and one
// release script.
//
// Unlock frees the lock and publishes on the channel of the waiter at the
// head of the queue, and only there: every other waiter, in every process,
// sleeps on. An attempt that finds the lock free with another waiter first
// in line wakes that waiter too, as a hold can end without a release (its
// lease ran out before its holder learned of it). Goroutines waiting on one
// Mutex are one owner with one place in the queue; when one of them gets
// the lock the others re-enter. When the last of them gives up (its ctx
// ended, or Redis failed), its entry leaves the queue before Lock returns,
// and the next waiter is woken if it is now first in line for a free lock.
// (Against a server that does not answer within 100 ms, Lock returns anyway
// and the entry leaves in the background, or ends with the waiter timeout.)
// An attempt whose reply was lost is undone first, handing the lock on if
// the attempt had taken it: to the first in line, which is the owner itself
// if the attempt took the lock from the head of the queue, so that a Lock
// that waits out a network error keeps its place (one that gives up leaves
// the queue as above).
//
// # Dead waiters
//
// Every attempt pushes the waiter's deadline to now + the waiter timeout
// ([WithWaiterTimeout], default 5 s), and a sleeping waiter wakes to
// attempt at least every third of it, as does a waiter whose subscription
// to its channel fails or is not confirmed yet, so a live waiter's entry
// never expires. Deadlines are measured on the Redis server's clock (TIME
// inside the scripts), never on a client's, so clock skew between
// clients does not matter. The entry of a waiter whose process died is
// evicted by the next script that looks once its deadline has passed; the
// waiter behind it bounds its sleep by that deadline, so it takes over at
// most one waiter timeout after the death, even when the release that
// was meant for the dead waiter went unheard. A waiter also bounds its
// sleep by the remaining lease of the holder its last attempt found, so a
// crashed holder delays the queue by at most its lease, or by a third of
// the waiter timeout if that is longer: a waiter learns of a holder that
// took the lock after its last attempt (the waiter ahead of it, say) at
// its next heartbeat.
//
// # Leases
//
// By default a hold has a 30 s lease that the Client's watchdog (package
// watchdog) renews every 10 s until Unlock, so a crashed process frees the
// lock within 30 s. With [lockkit.WithLease] the hold has a fixed lease
// instead and expires on its own. When the hold is found gone, the channel
// from [Mutex.Lost] is closed and Unlock returns [lockkit.ErrLost].
//
// # Guarantees and limits
//
// While its lease lives, a lock has one owner, and every fresh hold gets a
// [Mutex.Token] larger than any before it for the same name, even after a
// Redis restart that lost the data, as long as the server's clock does not
// go back. Owners take the lock in the order their first attempts reached
// Redis, except that a waiter that stops attempting for longer than the
// waiter timeout (its process died, or paused that long) loses its place
// and, if it comes back, queues again at the end. Deadlines run on the
// server's clock, so a Redis server that stalls for longer than the
// waiter timeout ends every entry's: the waiters, which kept attempting,
// all queue again, in the order their attempts reach the server after the
// stall. Mutexes of one Client sharing an owner id ([lockkit.WithOwner])
// share one place in the queue, which the last of them to give up takes
// out; Mutexes of that id on other Clients then queue again at the end at
// their next attempt. [Mutex.TryLock] never queues and never overtakes: it
// fails while anyone waits.
//
// A process that pauses (GC, swap, a stopped VM) for longer than its lease
// can still think it holds the lock after it expired; so can a holder whose
// Redis primary fails over before the lock was replicated, and a failover
// can also lose or reorder the queue. Pass the fencing token to the
// resource you protect and let it reject stale tokens when that matters.
package fair
