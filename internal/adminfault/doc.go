// Package adminfault holds the tests of what a Redis server's own state
// and administration can do to every lock kind (reentrant, reentrant in
// cohort mode, fair, spin, the write and read sides of rwlock, a
// multi-lock, RedLock, a semaphore, an election) while holds are held and
// waiters wait, and to a latch while its Awaits wait: SCRIPT FLUSH,
// FLUSHALL, FLUSHDB and DEL of a lock's keys, killed pub/sub connections,
// CLIENT PAUSE and DEBUG SLEEP, a full memory under noeviction and keys
// evicted under an LRU policy, CONFIG SET of settings the locks do not
// rely on, and a restart from an RDB snapshot or an AOF of an earlier
// moment (one node of three for RedLock).
//
// Every lock kind runs through the table of the kinds of
// internal/faultkit, on a redis-server of its own (three for RedLock),
// since each of these faults acts on the whole server. Each test has
// waiters on the holder's Client and on another; the test of killed
// pub/sub connections has one in a child process too (faultkit's waiter
// child).
//
// The package has no code of its own; it exists for its tests.
package adminfault
