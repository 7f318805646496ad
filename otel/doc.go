// Package otel measures lockkit's locks with OpenTelemetry metrics: waits,
// holds, acquires, renewals, losses and pub/sub reconnects, as reported by
// a [lockkit.Trace].
//
// It is a module of its own (github.com/lockkit/lockkit/otel), so that
// programs that use lockkit without it never download OpenTelemetry. It
// uses only the OpenTelemetry API; the program sets up the SDK and its
// exporters.
//
// # Turning it on
//
// Call [Instrument] once per Client, after [lockkit.New]:
//
//	locks := lockkit.New(rdb)
//	if err := otel.Instrument(locks); err != nil { // the global MeterProvider
//		return err
//	}
//
// [WithMeterProvider] picks another MeterProvider than the global one, and
// [WithLockName] adds the lock's name to the measurements of a lock
// (off by default: names are often made from request data, and each one
// would be a time series of its own).
//
// # Instruments
//
// All are made from the Meter named [ScopeName]. Durations are in
// seconds, as floating-point histograms.
//
//	name                          kind            unit           attributes
//	lockkit.lock.wait.duration    histogram       s              lock.kind, lock.mode, lock.name, outcome
//	lockkit.lock.hold.duration    histogram       s              lock.kind, lock.mode, lock.name, outcome
//	lockkit.lock.acquisitions     counter         {acquisition}  lock.kind, lock.mode, lock.name, lock.contended, lock.reentry
//	lockkit.lock.renewals         counter         {renewal}      outcome
//	lockkit.lock.lost             counter         {hold}         lock.kind, lock.mode, lock.name
//	lockkit.lock.held             up-down counter {hold}         lock.kind, lock.mode, lock.name
//	lockkit.lock.waiting          up-down counter {waiter}       lock.kind, lock.mode, lock.name
//	lockkit.watchdog.duration     histogram       s              outcome
//	lockkit.pubsub.reconnects     counter         {reconnect}
//
// What each one measures:
//
//   - lockkit.lock.wait.duration: how long a Lock (or RLock) call waited
//     for a lock that was not free at its first attempt, with outcome
//     "acquired" or "failed" (its ctx ended, an error). An acquire that
//     did not wait is not measured here: compare with
//     lockkit.lock.acquisitions{lock.contended=false}.
//   - lockkit.lock.hold.duration: how long each hold lasted, from the
//     acquire that began it to the Unlock that ended it (outcome
//     "released") or to its loss (outcome "lost"). Re-entries and the
//     Unlocks that only undo one are part of the hold, not holds of their
//     own.
//   - lockkit.lock.acquisitions: successful acquires, with lock.contended
//     (the call had to wait) and lock.reentry (an existing hold was
//     re-entered, also another value's of the same owner id) as booleans.
//   - lockkit.lock.renewals: the leases the watchdog renewed or tried to
//     (a fixed lease's verifications count as renewals), one per hold per
//     round trip, with outcome "renewed", "retry" (the renewal failed and
//     the hold is not reported lost yet: it is tried again while the
//     lease lasts) or "lost" (the hold was found gone). A hold that ended
//     while its renewal was on its way (released, or reported lost at its
//     lease's end because the round trip took longer) counts in none: the
//     round trip's outcome is in lockkit.watchdog.duration.
//   - lockkit.lock.lost: holds found lost (the Lost hook): the lease ran
//     out, the key vanished, the Client was closed, WithMaxHold, or an
//     Unlock found the hold gone first. A hold that values share (see
//     lockkit.lock.held) counts once.
//   - lockkit.lock.held: holds live in this process, +1 when a fresh hold
//     is taken (not on re-entry), -1 when it is released or lost. Lock
//     values of this process that share an owner id (lockkit.WithOwner)
//     share one hold, as they do in Redis: the first value's acquire
//     begins it, the others' re-enter it (lock.reentry=true), and it ends
//     when the last of them unlocks, or, lost, when the last is told.
//   - lockkit.lock.waiting: calls waiting for a lock in this process, +1
//     when a wait starts, -1 when it ends.
//   - lockkit.watchdog.duration: how long each renewal round trip of the
//     Client's watchdog took (one per shard per tick), with outcome "ok"
//     or "failed" (the round trip itself failed).
//   - lockkit.pubsub.reconnects: times the Client's pub/sub connection
//     broke and was replaced (waiters then re-check, holds are verified).
//
// The attributes:
//
//   - lock.kind: the lock kind, "reentrant", "fair", "spin", "rwlock",
//     "redlock" (measured once, through the first of its Clients),
//     "election" (a candidate's leadership is its hold) or
//     "semaphore" (each Acquire's permits are a hold); on every
//     measurement of a lock. A countdown latch reports nothing, and a
//     multilock.Mutex nothing of its own: each of its members is measured
//     as a lock of its kind.
//   - lock.mode: "read" or "write", for an rwlock only.
//   - lock.name: the lock's name, only with WithLockName(true).
//   - outcome: as listed above for each instrument.
//   - lock.contended, lock.reentry: booleans, on lockkit.lock.acquisitions.
//
// Holds and waits under way when Instrument is called are not counted in
// lockkit.lock.held, lockkit.lock.waiting or lockkit.lock.hold.duration,
// so that the counters never go below what they counted; a hold found
// lost and then unlocked ends once. Renewals and round trips are the
// Client's, not a lock's, and carry no lock attributes.
package otel
