package reentrant

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// WithLocalHandoff turns on cohort mode: the hold in Redis belongs to the
// process (the [lockkit.Client]) rather than to one Mutex, and is lent
// from Mutex to Mutex of that Client in memory. When a Mutex's Unlock
// ends its hold (its count reaches 0) while another Mutex of the same
// Client and name, made with the same options, waits in Lock, the hold is
// handed to the waiter that came first without a round trip: no release,
// no acquire. The hand-overs are bounded so that other processes still
// get their turn: after maxHandoffs hand-overs in a row, or once the
// process has kept the hold for maxHold since it took it from Redis, the
// Unlock releases it in Redis as without the option, which wakes one
// waiting process (see the package documentation, Waiting).
//
// What it changes:
//
//   - The owner in Redis is the process's cohort (an owner id of its
//     own), not the Mutex: HoldCount reports the Mutex's own count while
//     the process holds the lock in Redis, and a re-entry and the Unlock
//     that undoes it count in memory, sending nothing: the re-entry does
//     not start a fixed lease anew, as it does without the option, and
//     only the Unlock that ends the Mutex's hold learns from Redis that
//     the hold is gone (ErrLost).
//   - The fencing token stays the Redis hold's: a hand-over does not mint
//     a token, so Mutexes that follow each other by hand-over see the same
//     [Mutex.Token]. Tokens increase from one Redis hold to the next, not
//     from one local holder to the next. A resource that fences writes by
//     token cannot tell the local holders of one Redis hold apart; they
//     are one process, which the token does tell apart from any other.
//   - Trace hooks ([lockkit.WithTrace], the Client's) and
//     [lockkit.WithHolderInfo] describe the process's hold in Redis,
//     under the cohort's owner id: a hold taken from Redis, its loss and
//     its release there are reported, and so is the wait in Redis of the
//     Mutex that takes it, while re-entries, hand-overs and waits in
//     memory are not. A cohort lasts while a Mutex of it is in Lock or
//     holds; a Lock after that makes a new one, with a new owner id: the
//     events of one hold (Acquired, Lost, Released) carry one owner id,
//     and those of one wait (WaitStart, WaitDone) one, but a wait that
//     gave up and a hold taken later may carry two.
//   - Fairness across processes: a process keeps one Redis hold for up to
//     maxHandoffs+1 holds while it has waiters, and hands it over no more
//     once it has kept it for maxHold (its holder then keeps it until its
//     own Unlock), instead of one hold, and its release wakes a waiting process as any release does
//     (which bounds each Redis hold, not how many the process takes in a
//     row: a waiter of another process whose attempt is on its way, or
//     whose channel is not subscribed yet, when the process releases is
//     passed over); within the process, waiters are served in arrival
//     order.
//
// Lost, Context and Unlock's ErrLost reach the Mutex that holds the lock
// at the time; the watchdog keeps the one Redis hold alive across
// hand-overs. Once the process learns that its hold is lost (the watchdog
// found it gone or could not renew it, a fixed lease or
// [lockkit.WithMaxHold] ended it), the lost holder no longer keeps the
// process's other Mutexes out: the process gives the lost hold back in
// Redis itself (which reports its end, Released with its loss), asking
// again while Redis does not answer, and then the first that waits takes
// the lock from Redis, without waiting for the lost holder's Unlock. That
// Unlock returns the loss once the process gave the hold back, within its
// ctx (with a ctx without deadline, once a try at it failed). Until the
// process learns of the loss (at the watchdog's next renewal at the
// latest), they wait in memory. TryLock never waits for a hand-over and never takes one
// from a waiter: it re-enters, or succeeds when no Mutex of the process
// holds or waits for the lock (one round trip), and fails otherwise; while
// the process gives a lost hold back in Redis, which no Mutex holds any
// more, it waits for that release first, within its ctx. A
// Lock whose ctx ends while it waits in memory leaves the queue; if the
// hold was handed to it in the same instant, Lock returns it held.
//
// An Unlock that fails with the outcome of its release unknown (its reply
// lost to a network error, say) leaves the Mutex holding while the process
// settles it: the release is tried again in the background, with the same
// unlock id so that it never releases twice, until Redis answers. The hold
// then ends (lost, if the release found it gone) and the process's other
// Mutexes of the lock go on; until then they wait in memory. The Mutex's
// next Unlock has the release tried at once and waits for that try, within
// its ctx: once the outcome is known it returns it (nil when the release
// took effect, [lockkit.ErrLost] when the hold was gone), and while Redis
// does not answer, the try's error. A Lock of the Mutex meanwhile does not
// re-enter: it waits as another Mutex would and takes a fresh hold, which
// the Unlock after the one that returns the outcome releases (as without
// the option).
//
// maxHandoffs must be at least 1 and maxHold positive. It applies to
// reentrant locks only (spin and fair locks refuse it), also as a Client
// default, and cannot be combined with [lockkit.WithOwner]. Default: off
// (every Unlock that ends a hold releases it in Redis).
func WithLocalHandoff(maxHandoffs int, maxHold time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithLocalHandoff", true, config.Reentrant) {
			return
		}
		switch {
		case maxHandoffs < 1:
			o.Fail("WithLocalHandoff", "maxHandoffs must be at least 1, got %d", maxHandoffs)
		case maxHold <= 0:
			o.Fail("WithLocalHandoff", "maxHold must be positive, got %v", maxHold)
		default:
			o.HandoffMax, o.HandoffHold = maxHandoffs, maxHold
		}
	}
}

// noHandoff turns cohort mode off: the cohort's own lock value is a plain
// reentrant lock.
func noHandoff(o *config.Options) { o.HandoffMax, o.HandoffHold = 0, 0 }
