// Package pausefault holds the tests of what a client process stopped
// with SIGSTOP (as a long garbage-collection pause, swapping or a frozen
// virtual machine stops it) does to every lock kind (reentrant, reentrant
// in cohort mode, fair, spin, the write and read sides of rwlock, a
// multi-lock, RedLock, a semaphore, an election), against real
// redis-servers:
//
//   - a holder stopped for longer than its lease: another process takes
//     the lock once the lease ends, with a larger token; once resumed, the
//     stopped holder is told its hold is lost within a few hundred
//     milliseconds, by its watchdog's local deadline rather than by a
//     renewal, and its Unlock returns ErrLost and leaves the new hold be;
//   - a holder stopped for less than its lease keeps the lock, and its
//     Unlock after resuming frees it;
//   - a waiter stopped while first in line when the lock is released holds
//     the others up no longer than the kind's documented bound (the 100 ms
//     hand-off of a release that wakes one process; the waiter timeout of
//     a queue in Redis), and takes the lock in its turn once resumed.
//
// Every lock kind runs through the table of the kinds of
// internal/faultkit. The stopped process is faultkit's owner child
// process; the other owners run in the test's process on Clients of their
// own.
//
// The package has no code of its own; it exists for its tests.
package pausefault
