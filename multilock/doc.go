// Package multilock takes several locks as one: [Mutex], all or nothing
// over locks of any kind, and [RedLock], one lock held by a majority of
// independent Redis masters.
//
// # Mutex
//
// A Mutex is for work that must hold several resources at once, such as
// moving money between two accounts. Its members are [lockkit.Locker]s:
// any exclusive lock of this module (reentrant.Mutex, fair.Mutex,
// spin.Mutex, the write side of rwlock.RWMutex, a RedLock; another Mutex
// stands for its members), in any Cluster slot or on any server, or a type
// of your own with the same contract. It keeps nothing in Redis of its
// own.
//
// Lock takes the members one after another in the order of their names, so
// two callers whose sets overlap always wait for their shared locks in the
// same order and can never deadlock, in one process or many. Each member's
// Lock waits as long as the caller's ctx allows, or up to [WithLockWait].
// If a member cannot be taken (its wait ran out, or it failed), the round
// is abandoned: the members it took are released, all at once, on a context
// detached from the caller's, and after a short random sleep Lock starts
// again, until ctx ends. That release is waited for at most 500 ms in all,
// however many members a server that stopped answering holds up, so a Lock
// or TryLock whose round fails as its ctx ends returns up to 500 ms past
// the deadline (plus the 100 ms a member may take past it to clean up its
// own wait: a fair waiter leaving its queue, say). Members that share a
// name (distinct locks on different servers) cannot be ordered between
// callers, so they are only ever tried, never waited on. Two members that
// are one lock (one name, kind and prefix on one server or Cluster) are
// two owners of it unless they share an owner id ([lockkit.WithOwner]),
// and can never both be held: TryLock returns false and Lock fails when its
// ctx ends, each leaving nothing held; under one owner id the second
// re-enters the first's hold. TryLock makes one round of TryLocks. Unlock
// releases every member at once, so that a slow one holds up none of the
// others, and joins their errors; called again after one in doubt, it asks
// only the members in doubt, so that it releases no newer hold. Holding
// all members costs what they cost; a round costs one acquire per member,
// plus one release per member taken when it fails.
//
// A Mutex answers the queries of a single lock for the whole, asking every
// member at once: [Mutex.IsLocked] reports whether any member is held (by
// anyone: another owner's Lock would wait), [Mutex.HoldCount] how many
// times its owner holds every member (the smallest of their counts),
// [Mutex.TTL] the shortest lease among the held members, and
// [Mutex.ForceUnlock] frees every member. A member that cannot answer (a
// RedLock) makes them fail with [errors.ErrUnsupported], before anything
// is sent.
//
// Ordering prevents deadlock only among callers that take the locks
// through Mutexes (or in the same name order themselves); a goroutine that
// holds one lock and then waits for another outside a Mutex can still
// take part in a deadlock.
//
// # RedLock
//
// A single Redis primary can lose a lock: if it fails over before the
// lock was replicated, the replica that takes over has never seen it and
// grants it again. A RedLock ([NewRedLock]) avoids that by taking the lock
// on N independent masters (no replication between them), one
// [lockkit.Client] each, and counting it held only when a majority, N/2+1,
// granted it. A node may be a Cluster, through a Cluster client: the name's
// part lives on the master of its slot (a failover there may lose it, as
// on a single primary). The masters of one Cluster are not separate nodes:
// a name's keys live on one of them and the others answer MOVED, so a
// RedLock over them never gets a quorum ([lockkit.ErrQuorum]).
//
// A round:
//
//  1. Note the time and try every node at once, each for at most the node
//     timeout ([WithNodeTimeout]; by default a tenth of the lease, at most
//     250 ms), so a dead or stalled node costs little. Every other request
//     to a node is bounded the same way (see [WithNodeTimeout]).
//  2. The lock is taken if a majority granted it and its validity time is
//     positive: lease − time spent − drift allowance (lease·1% + 2 ms, see
//     [WithDriftFactor]).
//  3. Otherwise every node that granted it is released, and every node
//     that did not answer has its possible hold undone, at once, and Lock
//     tries again after a short random sleep, until its ctx ends. When
//     fewer than a majority of nodes answer at all, the error matches
//     [lockkit.ErrQuorum] and says how many did.
//
// On each node the lock is the hash PREFIX:{NAME} of every hash lock of
// this module: field = owner id, value = hold count; ':t:' + owner id =
// the node's fencing token of the hold; ':kind' = "redlock", so that the
// name cannot be used by another kind on that node. PREFIX:{NAME}:fence is
// the node's token counter (no TTL) and a key PREFIX:{NAME}:released:TOKEN
// remembers a released token for a while, so that a retried release
// reports success. Waiters do not use pub/sub: a blocked Lock retries with
// backoff, as package spin does.
//
// Each node's part of a hold is an ordinary hold of the engine: by default
// the watchdog of that node's Client renews it every third of the 30 s
// lease; its release is fenced by its token and by an unlock id, so an
// Unlock whose replies were lost can be called again without releasing
// twice. A node whose renewal finds its part gone, or keeps failing until
// the lease would have lapsed, drops out; when fewer than a majority of
// nodes still hold the lock, the channel from [RedLock.Lost] closes. With
// a fixed lease ([lockkit.WithLease]) nothing is renewed and the channel
// closes when the validity time ends, or earlier by the margin with which
// every fixed lease is reported over
// ([github.com/lockkit/lockkit/watchdog.Margin]) where that is larger than
// the drift allowance.
//
// Lock values with the same owner id ([lockkit.WithOwner]) are one owner,
// as for every kind: the second re-enters the hold of the first on each
// node, and the lock is free once both have unlocked.
//
// # Fencing tokens
//
// Each node mints its own tokens. A hold's [RedLock.Token] is the largest
// token among the nodes that granted it, and before Lock returns every
// granting node whose counter is behind is brought up to it (one more round
// trip when the counters disagree, which is nearly always, as each node
// mints from its own clock in µs), so that a majority of nodes have
// counters at or above it; a round where that fails does not count. Any two
// majorities share a node, so the majority that grants the next hold
// includes a node whose counter is already at or above this token, and the
// next token is larger: tokens strictly increase per name, across clients.
//
// A node mints the larger of its counter + 1 and its clock in µs, so a node
// that restarts without its data still mints tokens above those it minted
// itself before. But its counter may have been raised above its own clock,
// to a token minted by a node whose clock runs ahead; if it is the only node
// two successive majorities share, the later token may be smaller. Run the
// nodes with persistence (appendonly yes, appendfsync always), keep their
// clocks in step, or keep a restarted node out for longer than the lease
// plus the clock skew between nodes (the Redlock algorithm needs the lease
// wait for safety anyway).
//
// # What RedLock guarantees, and what it does not
//
// It guarantees that no two owners hold the lock at the same time while
// these assumptions hold: fewer than half of the nodes fail; a node that
// restarts comes back with its data or stays away for longer than the
// lease; and the clocks of the client and the nodes run at about the same
// rate (they need not agree on the time, but a lease must last about as
// long on each; the drift allowance covers 1%), and none is stepped.
//
// It does not guarantee exclusion when those fail: a node whose clock
// jumps forward, or that restarts empty at the wrong moment, can free the
// lock on a majority while its owner still works; and, as with every
// lease, a client that pauses (GC, swap, a stopped VM) for longer than the
// validity time, or whose request is delayed in the network, acts after
// its lock has expired and may overlap the next owner. The lost signal
// arrives only after the fact. The remedy is fencing: pass [RedLock.Token]
// to the resource you protect and let it reject a token smaller than one
// it has seen. A RedLock is also slower than a single-node lock: every
// acquisition talks to all N nodes.
package multilock
