// Package failover holds the tests of every lock kind across a failover of
// Redis with replicas: a Sentinel deployment through a failover client,
// and a Cluster with a replica per master through a cluster client, each
// failed over on purpose (SENTINEL FAILOVER, CLUSTER FAILOVER) and by
// killing the master with SIGKILL.
//
// The contract they check, for a lock held across the failover and a
// Lock of another owner blocked on it meanwhile:
//
//   - the hold survives, or its holder is told (its lost signal closes)
//     before another owner can hold the lock;
//   - the blocked Lock returns once the lock is free, woken as usual;
//   - fencing tokens keep increasing;
//   - no goroutine is left behind (the package's TestMain checks).
//
// The package has no code of its own; it exists for its tests.
package failover
