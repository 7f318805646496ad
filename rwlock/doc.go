// Package rwlock provides [RWMutex], a reentrant read-write lock on Redis:
// any number of readers or one writer, woken by pub/sub and kept alive by
// the Client's watchdog, each hold with a lease of its own.
//
// It is the distributed counterpart of [sync.RWMutex], for caches and
// configuration that many readers share and a few writers refresh. Make it
// from a [lockkit.Client] with [New]; options are the shared ones of
// package lockkit ([lockkit.WithLease], [lockkit.WithWatchdogTimeout],
// [lockkit.WithMaxHold], [lockkit.WithOwner], [lockkit.WithPrefix],
// [lockkit.WithReplicaAck], [lockkit.WithHolderInfo], [lockkit.WithTrace])
// but [lockkit.WithoutReentry] (both sides always re-enter: given to New
// it makes every method return [lockkit.ErrInvalid], and a Client's
// default passes the read-write locks over), and [WithWriterPreference].
// As in package reentrant, the owner is the value returned by New, not a
// goroutine. Unlike sync.RWMutex, both sides are reentrant per owner, and
// the writer may take the read lock and keep it after Unlock (a downgrade:
// Lock, RLock, Unlock leaves the owner reading, with no gap a writer could
// slip into). For a plain exclusive lock see package reentrant.
//
// # Redis layout
//
// Every key and channel of lock NAME carries the {NAME} hash tag, so each
// script touches one Cluster slot:
//
//	PREFIX:{NAME}           hash  the engine's hold layout, ':kind' = "rwlock":
//	                              OWNER:w = write hold count, OWNER:r = read hold count;
//	                              ':t:'HOLD = the hold's fencing token,
//	                              ':u:'HOLD = its latest partial unlock ids;
//	                              ':mode' = "write" while a write hold exists, else "read";
//	                              ':claim' = "1" once a writer waiting in Lock was refused;
//	                              ':readturn' = after a downgrade, the end of the readers' turn (see Writer preference)
//	PREFIX:{NAME}:leases    zset  member = hold (OWNER:w or OWNER:r), score = its lease deadline
//	PREFIX:{NAME}:writers   zset  member = OWNER:w of a waiting writer, score = its intent deadline;
//	                              member ':handoff', score = the end of a hand-off (see Waiting)
//	PREFIX:{NAME}:fence     fencing-token counter shared by read and write holds (no TTL)
//	PREFIX:{NAME}:released:TOKEN  there for a while after the hold with TOKEN was released (retry-safe unlocks)
//	PREFIX:{NAME}:ch        channel that wakes readers
//	PREFIX:{NAME}:wch       channel that wakes writers
//
// Deadlines are milliseconds of the server's clock (TIME inside the
// scripts). Every script that changes the lock first drops the holds whose
// deadline has passed and, but the renewal (which names the hash and the
// lease set alone), the intents that lapsed; the hash and lease set expire
// at the latest live deadline. The lock is free exactly when the
// hash does not exist.
//
// A name is one kind of lock. Every script that would create, rewrite or
// delete the hash first checks its ':kind': when a lock of another kind
// (reentrant, fair, spin) holds the name, the call returns an error
// matching [lockkit.ErrWrongKind] and changes nothing, and that lock's
// holder keeps it.
//
// # Per-hold leases
//
// Each hold, read or write, has its own lease: the watchdog renews each
// one by moving only its own deadline, every third of the lease (default
// 30 s), until it is unlocked. A crashed reader's hold therefore ends by
// itself after its lease, never keeps the lock alive longer, and never
// extends the holds of the other readers; the lock's TTL follows its
// longest live hold. With [lockkit.WithLease] holds have a fixed lease and
// expire on their own.
//
// # Writer preference
//
// A writer waiting in Lock registers an intent in PREFIX:{NAME}:writers
// that lasts the watchdog timeout; it refreshes it every third of that
// while it waits, withdraws it if it gives up (unless another call of the
// Client still waits to write as the same owner), and removes it when it
// takes the lock. While any intent is live, owners that do not already hold the
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
// writer processes contending, a reader may lose a few turns. When the
// writer downgraded, the lock stays read-locked and a writer woken with the
// readers can only register its intent again, often before they try: for
// a moment then (100 ms at most) intents hold back no reader, so that the
// readers woken join the downgraded owner instead of waiting for the next
// writer.
// WithWriterPreference(false) turns intents off: readers then get in
// whenever no writer holds the lock, and a writer may wait for as long as
// readers keep overlapping.
//
// # Waiting
//
// An uncontended Lock or RLock costs one round trip. On contention it
// follows the engine's pub/sub wait: it joins the Client's notifier queue
// for its channel (package notify), readers on PREFIX:{NAME}:ch and writers
// on PREFIX:{NAME}:wch, waits for Redis to confirm the subscription, tries
// again, and then sleeps until it is woken or, whichever comes first, the
// earliest lease in its way ends (or the intent that blocks it lapses):
// every hold has its own lease, and a crashed reader's ends without a
// release to wake anyone. It never polls on a fixed timer.
// Within a process waiters form a FIFO: a newcomer does not try while
// others of its process wait. A waiting writer with writer preference also
// wakes every third of the watchdog timeout to refresh its intent. Ending
// a write hold wakes every waiting reader and one waiting writer; the read
// release that frees the lock wakes one waiting writer, and hands the lock
// off to the writers if one claimed it. A waiting writer registers its
// process in PREFIX:{NAME}:wprocs and sleeps on its process's own channel
// PREFIX:{NAME}:wch:ID, so that a release wakes the writers of the process
// that registered first, not one writer in every process, and keeps the
// free lock for them (PREFIX:{NAME}:turn) until one takes it, or for
// 100 ms at most (the next three processes in line are told to try 100,
// 200 and 300 ms on, should the woken one never come): a writer of
// another process that releases and locks again at once does not take it
// back. Where a publish cannot tell whether
// a process listens (a Cluster before Redis 7, a client that reads from
// replicas), each release still wakes one writer per process, on
// PREFIX:{NAME}:wch, and keeps the lock for nobody. A
// writer refused in Lock claims the lock; when its last reader leaves, new
// readers stay out of the free lock until a writer takes it, or for 100 ms
// at most. A woken writer needs a round trip or two to come, and without
// the hand-off the reader that freed the lock would take it again first,
// time after time, so that a writer could wait for seconds behind short
// reads. A claim asks for one hand-off: a writer that gave up or died
// costs the readers one such pause at most. A re-entry, a writer's RLock
// and a refused upgrade are decided at once and never queue behind
// waiters, which may be waiting for this very owner. An RWMutex made with
// [lockkit.WithOwner] cannot tell whether its owner holds the lock through
// another value, so its Lock and RLock try once before they queue.
//
// An acquire whose reply is lost (a timeout, a dropped connection, ctx
// ending in flight) is undone as soon as its reply comes, and a writer
// that gives up withdraws its intent, and withdraws it again when the
// reply of an attempt still on its way comes (which may have registered
// it anew), unless another call waits to write as the same owner. Both
// clean-ups run on a context detached from the caller's, and Lock waits
// for the withdrawal at most 100 ms past its deadline (it goes on in the
// background). Unlock and RUnlock are fenced by the hold's token and safe
// to retry after an error.
//
// # Guarantees
//
// While the leases live there is never a writer together with a reader or
// another writer, except the writer's own read hold. Every fresh hold, read
// or write, gets a fencing token ([RWMutex.Token], [RWMutex.RToken]) larger
// than any before it for the same name, so a read's token is larger than
// the token of every write that ended before the read began. A token is the
// larger of the counter + 1 and the server time in µs, so this holds even
// after a Redis restart that lost the data, as long as the server's clock
// does not go back.
//
// # Not supported
//
// A read-to-write upgrade: Lock by an owner that holds only the read lock
// returns an error matching [lockkit.ErrUpgrade] at once instead of waiting
// for itself forever; release the read lock, Lock, and read again what may
// have changed in between. Goroutines that share one RWMutex share its
// holds and do not exclude each other, just as with reentrant.Mutex. Leases
// are the only bound on a hold: a process that pauses for longer than its
// lease (GC, swap, a stopped VM) can still think it holds the lock after it
// expired, and so can a holder whose Redis primary fails over before the
// lock was replicated. Pass the fencing token to the protected resource
// when that matters. Writers are not served in strict order across
// processes, and there is no fair queue of readers and writers.
package rwlock
