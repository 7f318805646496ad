// Package clusterfault holds the tests of every lock kind on a Redis
// Cluster whose topology changes under it: a held lock's slot migrated to
// another master (CLUSTER SETSLOT IMPORTING and MIGRATING, MIGRATE of its
// keys, SETSLOT NODE) while its holder renews it and other owners wait for
// it, a master failed over while owners wait, and a master added and
// given slots while several owners lock and unlock.
//
// The contract they check, for each kind (a reentrant lock, with and
// without cohort mode, a fair or spin lock, either side of an rwlock, a
// multi-lock over members on different masters, a semaphore's permits, an
// election's leadership, a latch's count):
//
//   - every call returns within its ctx, with the lock or a clear error;
//   - a hold is renewed across the move and never reported lost while its
//     keys move: renewals refused during the move (ASK, TRYAGAIN) are
//     tried again and reach the new master (MOVED);
//   - owners waiting in the holder's process and in another are woken by
//     the release at the new master, one at a time for an exclusive kind;
//   - nothing of the lock is left in Redis once it is given back.
//
// The package has no code of its own; it exists for its tests.
package clusterfault
