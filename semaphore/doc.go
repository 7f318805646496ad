// Package semaphore provides [Semaphore], a counting semaphore on Redis
// whose permits have leases: at most N permits are held at once, by any
// goroutines and processes; each hold is kept alive by the Client's
// watchdog and is freed by itself when its holder dies. It is the
// distributed counterpart of golang.org/x/sync/semaphore's Weighted
// (Redisson's RPermitExpirableSemaphore), as the reentrant lock is
// of sync.Mutex: it bounds how many workers of a fleet call a rate-limited
// API, or run a heavy job, at once.
//
// # Redis layout
//
// A semaphore is a hash, PREFIX:{NAME}: ':kind' = 'semaphore', ':used' =
// the permits held, and for each hold (one per Acquire, with an id of
// its own) its fencing token, its permits and the ids that make a
// re-sent script idempotent. Beside it, in the same {NAME} slot: the
// sorted set PREFIX:{NAME}:leases (each hold's lease end, in server
// time), the queue of waiters PREFIX:{NAME}:waiters and
// PREFIX:{NAME}:timeouts (as the fair lock's, each entry naming the
// permits it waits for), the number of permits set at run time
// PREFIX:{NAME}:permits, the fencing counter PREFIX:{NAME}:fence and the
// recently released tokens, a key PREFIX:{NAME}:released:TOKEN each.
// Every key expires with what it serves (the latest lease, the latest
// waiter deadline, 24 hours for the number of permits, 10 s for a
// released token), except the fencing counter.
//
// # Waiting
//
// Acquire tries once; refused, it joins the queue, subscribes to a
// channel of its own, PREFIX:{NAME}:ch:ID, through the Client's notifier,
// tries again and sleeps. A release (or an ended lease, a waiter that
// gives up, a larger number of permits) publishes a wake-up on the own
// channel of each waiter that the free permits now serve, together with
// every waiter ahead of it, and of no other: a release of k permits
// wakes at most k waiters, in queue order, across processes, and
// nobody else. A waiter never passes one ahead of it, so a request for
// many permits is not starved by small ones. While it sleeps a waiter
// renews its place every third of the waiter timeout (5 s); the entry
// of a waiter whose process died is dropped once that runs out. The
// deadlines run on the server's clock, so a Redis server that stalls for
// longer than the waiter timeout ends every entry's: the waiters, which
// kept attempting, all queue again, in the order their attempts reach the
// server after the stall.
//
// # Guarantees and limits
//
// At most N permits are held while the leases live, and every hold's
// [Permits.Token] is larger than any taken before on the name. A hold
// whose holder stopped renewing it (its process died, or lost Redis) is
// freed once its lease ends, and [Permits.Lost] tells a live holder
// before that. As with every lockkit lock, a process paused beyond its
// lease can outlive its hold (check Lost, or fence with the token), and a
// Redis restart without persistence, or a failover before replication,
// forgets the holds: their holders learn it from the watchdog.
package semaphore
