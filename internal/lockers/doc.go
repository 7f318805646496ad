// Package lockers turns the kinds whose Lock returns a value (a
// semaphore's permits, an election's leadership), and the read side of an
// rwlock, into lockkit.Lockers with a lost signal and a fencing token, so
// that the tests that drive every kind alike (the failover tests, the
// fault matrix) take them as they take a mutex.
//
// Such a Locker acts on the last hold its Lock or TryLock took: Unlock
// releases it, Lost and Token are its own.
package lockers
