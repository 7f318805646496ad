// Package failover holds the tests of every lock kind across a failover of
// Redis with replicas: a Sentinel deployment through a failover client,
// and a Cluster with a replica per master through a cluster client, each
// failed over on purpose (SENTINEL FAILOVER, CLUSTER FAILOVER) and by
// killing the master with SIGKILL.
//
// The contract they check, for a lock held across the failover (a
// reentrant lock, with and without cohort mode, a fair or spin lock,
// either side of an rwlock, a multi-lock, a semaphore's permits, an
// election's leadership) and a Lock of another owner blocked on it
// meanwhile:
//
//   - the hold survives, or its holder is told (its lost signal closes)
//     before another owner can hold the lock;
//   - the blocked Lock returns once the lock is free, woken as usual;
//   - fencing tokens keep increasing;
//   - an election's observer, subscribed before the failover, reports the
//     new leader;
//   - no goroutine is left behind (the package's TestMain checks).
//
// A latch has no holder: one counted down before the failover has an
// Await blocked on it, which must return once count-downs made after the
// failover open it, and not before. A count-down the replicas had must
// survive; the last one, made without waiting for them, may be lost to a
// SIGKILL (the latch then waits for it again), but not to a CLUSTER
// FAILOVER, which loses no write.
//
// The package has no code of its own; it exists for its tests.
package failover
