// Package rwlock provides [RWMutex], a reentrant read-write lock on Redis:
// any number of readers or one writer, woken by pub/sub and kept alive by a
// watchdog.
//
// It is the distributed counterpart of [sync.RWMutex], for caches and
// configuration that many readers share and a few writers refresh. As in
// package reentrant, the owner is the value returned by [New], not a
// goroutine. Unlike sync.RWMutex, both sides are reentrant per owner, and
// the writer may take the read lock and keep it after Unlock (a downgrade:
// Lock, RLock, Unlock leaves the owner reading, with no gap a writer could
// slip into). A read-to-write upgrade is not supported: Lock by an owner
// that holds only the read lock returns [ErrUpgrade] at once instead of
// waiting for itself forever. For a plain exclusive lock see package
// reentrant.
//
// # Redis layout
//
// Every key and channel of lock NAME carries the {NAME} hash tag, so each
// script touches one Cluster slot:
//
//	PREFIX:{NAME}           hash  ':mode' = "read" | "write";
//	                              OWNER:w = write hold count, OWNER:r = read hold count;
//	                              HOLD:t = the hold's fencing token, HOLD:u = its last partial unlock id
//	PREFIX:{NAME}:leases    zset  member = hold (OWNER:w or OWNER:r), score = its lease deadline
//	PREFIX:{NAME}:writers   zset  member = owner id of a waiting writer, score = its intent deadline
//	PREFIX:{NAME}:fence     fencing-token counter shared by read and write holds (no TTL)
//	PREFIX:{NAME}:released  zset of recently released tokens (retry-safe unlocks)
//	PREFIX:{NAME}:ch        channel that wakes readers
//	PREFIX:{NAME}:wch       channel that wakes writers
//
// Deadlines are milliseconds of the server's clock (TIME inside the
// scripts). Every script first drops the holds whose deadline has passed and
// the intents that lapsed, and the hash and lease set expire at the latest
// live deadline. The lock is free exactly when the hash does not exist.
//
// # Per-hold leases
//
// Each hold, read or write, has its own lease: the watchdog (package
// watchdog) renews each one by moving only its own deadline, every third of
// the lease (default 30 s), until it is unlocked. A crashed reader's hold
// therefore ends by itself after its lease, never keeps the lock alive
// longer, and never extends the holds of the other readers; the lock's TTL
// follows its longest live hold. With [WithLease] holds have a fixed lease
// and expire on their own.
//
// # Writer preference
//
// A writer waiting in Lock registers an intent in PREFIX:{NAME}:writers
// that lasts the watchdog timeout; it refreshes it every third of that
// while it waits, withdraws it if it gives up, and removes it when it takes
// the lock. While any intent is live, owners that do not already hold the
// read lock cannot take it. Readers that already hold it may re-enter, and
// the writer may take it, so writer preference cannot deadlock a reentrant
// reader. So a writer waits only for the readers already in. A steady
// stream of overlapping readers cannot starve it. A writer that dies while
// waiting stops holding readers back when its intent lapses.
//
// When a write hold ends, every pending intent is cleared, and the waiting
// readers are woken (before the waiting writers, which register their
// intents again when they try). So a stream of writers cannot lock readers
// out: after each write hold the readers already waiting race the writers
// for the next turn. This is weaker than strict alternation: with several
// writer processes contending, a reader may lose a few turns.
// [WithWriterPreference](false) turns intents off: readers then get in
// whenever no writer holds the lock, and a writer may wait for as long as
// readers keep overlapping.
//
// # Waiting
//
// An uncontended Lock or RLock costs one round trip. On contention it
// follows the wait protocol the pub/sub-woken locks share: it joins the
// process-wide notifier's queue for its channel (package notify), readers
// on PREFIX:{NAME}:ch and writers on PREFIX:{NAME}:wch. It waits for Redis
// to confirm the subscription, tries again, and then sleeps until it is
// woken or the lease (or intent) that blocks it ends, whichever comes
// first. It never polls on a fixed timer. A waiting writer with writer
// preference also wakes every third of the watchdog timeout to refresh its
// intent. Ending a write hold wakes every waiting reader and one waiting
// writer per process. The read release that frees the lock wakes one
// waiting writer per process. A re-entry, a writer's RLock and a refused
// upgrade are decided at once and never queue behind waiters, which may be
// waiting for this very owner.
//
// # Guarantees and limits
//
// While the leases live there is never a writer together with a reader or
// another writer, except the writer's own read hold. Every fresh hold, read
// or write, gets a fencing token ([RWMutex.Token], [RWMutex.RToken]) larger
// than any before it for the same name. So a read's token is larger than
// the token of every write that ended before the read began. A process that
// pauses for longer than its lease (GC, swap, a stopped VM) can still think
// it holds the lock after it expired. So can a holder whose Redis primary
// fails over before the lock was replicated. Pass the fencing token to the
// protected resource when that matters. Goroutines that share one RWMutex
// share its holds. They do not exclude each other, just as with
// reentrant.Mutex.
package rwlock
