// Package lockkit is the vocabulary shared by lockkit's distributed locks
// on Redis: the [Client] every lock is made from, the [Option]s every kind
// accepts, the [Locker] interface, and the errors every kind returns.
//
// The lock kinds live in their own packages, each a small configuration of
// one engine:
//
//   - reentrant: the default mutex, with hold counts, woken by pub/sub;
//   - fair: a mutex handed out in arrival order across processes;
//   - rwlock: many readers or one writer, with per-reader leases;
//   - spin: the reentrant mutex waiting by backoff instead of pub/sub;
//   - multilock: several locks as one (all or nothing), and RedLock over
//     independent masters;
//   - semaphore: up to N permits held at once, across processes;
//   - latch: a countdown latch that opens after N count-downs;
//   - election: leader election, the term being the fencing token.
//
// A typical service makes one Client per Redis deployment and a lock value
// per owner:
//
//	locks := lockkit.New(rdb) // rdb: any go-redis client
//	defer locks.Close()
//	m := reentrant.New(locks, "orders:42")
//	if err := m.Lock(ctx); err != nil {
//		return err
//	}
//	defer m.Unlock(ctx)
//
// A lock's name is any string of 1 to 1024 bytes: braces, ':', spaces,
// newlines and bytes that are not UTF-8 included; an empty or longer name
// is [ErrInvalid]. Its keys are PREFIX:{NAME}, PREFIX:{NAME}:fence and so
// on, with '%', '{' and '}' percent-encoded inside the braces, so that
// all the keys of a name share one Cluster slot and no two names, nor two
// prefixes, share a key. The prefix ([WithPrefix], "lockkit" by default)
// is 1 to 512 bytes without '{' or '}'. A name belongs to one kind at a
// time: another kind's call on it returns [ErrWrongKind].
//
// What every kind guarantees: while a hold's lease lives, no other owner
// holds the lock; the watchdog renews leases while a lock is held and the
// holder is told (its lost signal closes) before the server could hand the
// lock to anyone else; every fresh hold carries a fencing token larger
// than any before it for that name; and an Unlock never frees a newer hold,
// and may be retried after an error without unlocking twice (a failed last
// Unlock that is not retried is settled in the background, so it does not
// keep the lock held). The Unlock after a failed one is its retry, even
// when the lock value was locked again in between: check Unlock's error,
// and call Unlock again before locking the same value again while it is
// not nil, ErrNotHeld or ErrLost, or make a new lock value for each hold.
//
// A fencing token is the larger of the name's counter + 1 and the Redis
// server's time in µs, so tokens are large numbers, not 1, 2, 3, and keep
// increasing even after a restart that lost the counter, as long as the
// server's clock does not go back. Compare tokens; do not count on their
// values.
//
// Every call returns within its ctx deadline, even against a server that
// stopped answering and a go-redis client without ContextTimeoutEnabled:
// a request not answered in time finishes in the background (Close waits
// for it), and an acquire among them is undone when its reply comes.
//
// To see what locks do, give a [Trace] to the Client ([WithTrace],
// [Client.AddTrace]) or to one lock, or a logger ([WithLogger]); the otel
// module turns the Trace into OpenTelemetry metrics, and the lockkit
// command (cmd/lockkit) inspects the locks in Redis. [WithMaxHold] keeps a
// stuck holder from keeping a lock for ever, and the Context method of
// the reentrant, fair, spin, read-write and RedLock locks (and of an
// election's Leadership) gives a context that ends with the hold.
//
// What no kind can guarantee: a process paused longer than its lease (a
// long GC, a stopped VM) may still act as holder when it resumes; pass the
// fencing token to storage that rejects stale tokens. A Redis failover may
// lose a lock the old master had not replicated; RedLock over independent
// masters avoids that. A lock whose keys are removed on the server (DEL,
// FLUSHALL, or eviction under a maxmemory-policy that evicts) is free at
// once: another owner may take it before the holder is told, at its next
// renewal.
package lockkit
