// Lockkit inspects lockkit's distributed locks in Redis: it lists them,
// decodes the state of one, watches it change, and frees a stuck one.
//
// Install it with
//
//	go install github.com/lockkit/lockkit/cmd/lockkit@latest
//
// Usage:
//
//	lockkit [flags] COMMAND [flags] [ARGS]
//
// Flags may come before or after the command and its arguments; "--" ends
// them (for a lock name that starts with '-').
//
// # Commands
//
//	ls [PATTERN]
//
// Ls lists the locks whose names match the glob PATTERN (default: every
// lock), read as Redis's KEYS reads one (* ? [abc] [^a-z] \x) and
// matched against the names, not their keys, one line each: name, kind,
// mode, holders with their hold counts, fencing tokens, the lease left
// (the hash's PTTL), waiters, the number of anomalies and a detail of the
// kind. It SCANs for lock hashes PREFIX:{NAME} (on every master of a
// Cluster) and reads each lock as show does. Waiters are the length of a fair lock's queue and a read-write
// lock's waiting writers; "-" for the kinds whose waiters wait only in
// their own processes (reentrant, spin, RedLock nodes, elections,
// latches). A read-write hold shows as w:OWNER(COUNT) or r:OWNER(COUNT).
// A countdown latch (package latch) has no holders: its mode is "closed"
// or "open", its TTL its expiry and its detail "count=N" (the count left)
// or "open". An election (package election) is its leader's hold, whose
// token is the term; its detail is leader="VALUE", "unproclaimed" for a
// moment after a leader won, or "no-leader". A semaphore (package
// semaphore) is "held" while any permit is; each hold shows as
// ID(PERMITS), its waiters are its queue's length, and its detail is
// "used=HELD/PERMITS", or "used=HELD" when the number of permits was never
// set at run time (SetPermits): the number each semaphore.New was given
// is not kept in Redis. HELD counts the permits of the holds whose lease
// has not ended; those of the others are free (the next script on the
// semaphore frees them).
//
//	show NAME
//
// Show prints everything Redis keeps about lock NAME, read in one script
// at one instant and given in the server's time (TIME): its kind, mode and
// lease; the last fencing token minted; each hold with its count, token
// and lease (a read-write hold has a lease of its own); a fair lock's
// queue, first in line first, with each waiter's deadline; a read-write
// lock's writer intents, its claim and hand-off; a latch's count left,
// the count-downs recorded and its expiry; an election's leader, the
// value it proclaimed, its term and its lease; a semaphore's number of
// permits (when set at run time) and the permits held and free, each hold
// with its permits, token and own lease, and its queue with the permits
// each waiter waits for; the processes registered
// as waiting for a reentrant lock or an election, the next to be woken
// first; how many connections are subscribed to each of its wake-up
// channels (PUBSUB NUMSUB, added up over the nodes of a Cluster, so that
// show fails, within --timeout, while any node does not answer; lockkit
// subscribes one connection per Client, so this is the number of
// processes with local waiters there): a latch's waiters, an election's
// candidates and its observers (PREFIX:{NAME}:observe); and the
// anomalies, states lockkit's scripts never leave behind: a hold without a
// TTL, a hold without a fencing token, a queue entry without a deadline, a
// hash of an unknown kind or without one, an exclusive lock with several
// holders, a write hold beside other owners' reads, keys of one kind next
// to a lock of another, a latch without a TTL or a count, an open latch
// that kept count-down ids, an election's value without its hold or a
// leader's hold taken more than once, a semaphore's hold without its
// permits or lease, or permits held that do not add up to ':used'. A
// sample:
//
//	$ lockkit show 'jobs:nightly'
//	lock         jobs:nightly
//	key          lockkit:{jobs:nightly}
//	kind         fair
//	state        exclusive, lease 25.348s
//	server time  2026-11-24T09:26:53.014Z
//	fence        1795512413014017 (last token minted)
//
//	holders: 1
//	  OWNER     MODE       COUNT  TOKEN             LEASE
//	  worker-a  exclusive  1      1795512413014017  25.348s
//
//	queue: 2 waiting
//	  #  OWNER     ARRIVAL  DEADLINE
//	  1  worker-b  6        in 3.689s
//	  2  worker-c  7        in 4.912s
//
//	subscribers (processes with local waiters):
//	  lockkit:{jobs:nightly}:ch:worker-b  waiter worker-b  1
//	  lockkit:{jobs:nightly}:ch:worker-c  waiter worker-c  1
//
//	anomalies: none
//
//	watch [--interval D] NAME
//
// Watch subscribes to lock NAME's wake-up channels, prints its state, and
// then, until interrupted (ctrl-C, SIGTERM), every change: each hold that
// begins, changes count or ends, each owner that joins or leaves a fair
// queue, each writer intent, and each message published on the channels
// ("1" wakes one waiter per process, "*" every waiter, "s100" tells the
// process next in line that the lock is kept 100 ms for another, "s200"
// and "s300" the two after it when to try if those ahead do not), each
// count-down of a latch and its opening, and each leader an election
// proclaims (its observers' channel is watched too). The state is read
// every --interval (default 100ms) and at once after each message, so a
// hold taken and released between two reads shows only as its release's
// message (and a spin lock's, which publishes nothing, not at all). On a
// Cluster (--cluster), lockkit publishes on shard channels (Redis 7),
// which have no patterns: watch follows the lock's shared channels there,
// and a wake-up sent to one process or waiter shows only as the change it
// causes.
//
//	unlock --force --yes NAME
//
// Unlock frees lock NAME whoever holds it, however many times, and wakes
// its waiters exactly as the kind's own ForceUnlock does, because it is
// that ForceUnlock: it reads the hash's ':kind' and calls
// reentrant.Mutex.ForceUnlock on a lock made by reentrant.New, spin.New or
// fair.New, or rwlock.RWMutex.ForceUnlock. Every waiter of a reentrant or
// read-write lock is woken, the first in line of a fair lock; spin waiters
// find the lock free at their next attempt. An election is freed by
// election.Election.ForceUnlock: the leader's hold and value go, every
// candidate is woken, and the observers are told at once, as Resign tells
// them; the leader's Context ends when its watchdog finds the hold gone. If the name
// changed kind in between, the library refuses and nothing changes. The
// former holders learn that they lost the lock from their watchdog or
// their next Unlock. A RedLock node's part is refused: freeing one node
// does not free the RedLock. A semaphore is refused (status 1): its
// permits are freed by their holders' Release, or at the end of the
// lease of a holder that died, and package semaphore has no force unlock;
// to let waiters through past a stuck holder, raise the number of permits
// (semaphore.Semaphore.SetPermits). A latch is refused too (status 1): it
// is not a lock and has no holder to free; opening it would let its waiters go
// without the count-downs they wait for, and deleting it would make them
// wait for a full count again, so lockkit does neither; count it down, or
// let it expire. A hash of a kind lockkit does not know, or without a
// kind, is refused as well (status 1): no ForceUnlock knows how to free
// it and wake its waiters. Without --force unlock refuses (status 2);
// without --yes it changes nothing, says what it would free and exits
// with status 1. A lock that is not held is left as it is, with status 0,
// with or without --yes.
//
// Every other command only reads: show and ls read through EVAL_RO, which
// the server refuses to let write. An ACL user with +@read +@pubsub
// +@connection +time +eval_ro +evalsha_ro may run them and watch.
//
// # Names in the output
//
// A lock name may hold any byte (see package lockkit). The text output
// prints a name, owner id, key or channel as it is when it is valid UTF-8
// with every character printable and no space; any other, and one that
// starts with a double quote, is printed quoted as a Go string ("a b",
// "a\nb", "\xff"), so that a name cannot break a line or a column, send
// the terminal a control sequence, or pass for another name. An anomaly's
// text escapes its characters that are not printable the same way, without
// quotes. A NAME given to show, watch or unlock that starts with a double
// quote is such a quoted Go string, so that every name printed can be
// given back as printed, one with a NUL byte (which no argument can hold)
// included: `lockkit show '"a\x00b"'`. A name that itself starts with a
// double quote is given quoted too. The JSON output carries names as JSON
// strings: bytes that are not valid UTF-8 come out as U+FFFD there, so
// read such names from the text output.
//
// # Connection flags
//
// As in redis-cli:
//
//	-u URL               redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], or rediss:// for TLS;
//	                     with --cluster, more nodes may be given as ?addr=HOST:PORT
//	-h HOST, -p PORT     default 127.0.0.1:6379
//	-a PASSWORD          also read from REDISCLI_AUTH, when neither -a nor -u gives one
//	--user USER          ACL user name
//	-n DB                database number
//	--tls                connect with TLS
//	--cacert FILE        trust the CA certificates in FILE (PEM) for TLS
//	--insecure           with TLS, do not verify the server's certificate
//	--cluster            the server is a Cluster node: use a Cluster client
//	--sentinel-master NAME --sentinel ADDR[,ADDR]
//	                     connect to the master NAME through Sentinel (repeatable --sentinel;
//	                     each needs the other, and neither goes with -u)
//
// Other flags: --prefix PREFIX (default "lockkit", as lockkit.WithPrefix),
// -o text|json, and --timeout D (default 10s), which bounds each command
// but watch.
//
// # JSON output
//
// With -o json every command prints JSON whose field names are stable:
// snake_case, durations in milliseconds (*_ms), instants in milliseconds
// of the server's clock (*_at_ms, server_time_ms). Show prints one [Lock]
// object (name, key, kind, held, mode, server_time_ms, ttl_ms, fence,
// holders, queue, writers, processes, latch, election, semaphore,
// subscribers, anomalies), with [Holder] (owner, hold, mode, count, token, lease_ms,
// expired, last_acquire, last_unlock), [Queue] and [Waiter] (owner,
// arrival, deadline_at_ms, left_ms, expired), [Writers] and [Intent],
// [Process] (id, waiting_ms), [Latch] (count, open, count_downs), [Election]
// (leader, value, term, lease_ms), [Semaphore] (permits, permits_ttl_ms,
// used, live, free) and [Subscribers] (channel, role, count); a
// semaphore's holders and waiters also give their permits. Ls prints an
// array of [Entry] (name, kind, mode, holders, ttl_ms, waiters,
// anomalies, latch, election, semaphore). Watch prints one [Event]
// per line (time, event, name, owner, mode, count, previous, token,
// channel, message, value, lock). Unlock prints an [UnlockResult] (name,
// kind, holders, confirmed, freed). A ttl_ms of -1 means no TTL and -2 no
// key; a null queue, writers, latch, election or semaphore means the lock
// is not of that kind.
//
// # Exit status
//
// 0 when done, 1 on an error or a refused unlock, 2 for a bad command line
// (an empty NAME among them: no lock has it).
package main
