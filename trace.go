package lockkit

import (
	"time"

	"github.com/lockkit/lockkit/watchdog"
)

// Trace is a set of hooks that report what locks do, in the style of
// net/http/httptrace: set the fields you need with [WithTrace], per Client
// (every lock of it) or per lock. Any field may be nil, and a nil Trace
// costs nothing. Hooks run synchronously on the goroutine of the event
// (the caller's, or one of the Client's for renewals, losses and
// reconnects); they must be quick and must not block or call the lock. A
// hook that panics is recovered and its panic dropped: the other hooks
// still get the event, and the lock goes on as if the hook had returned.
//
// [Client.Close] reports every hold still open Lost before it returns,
// and the Client's own goroutines report nothing after that; calls made
// later still report their own events (the Unlock of a hold that Close
// lost reports Released, with that loss). A RedLock's hold is lost, and
// reported, by the Close of its nodes' Clients that leaves fewer than a
// majority of its nodes holding it.
//
// The otel module (github.com/lockkit/lockkit/otel) turns a Trace into
// OpenTelemetry metrics, and [WithLogger] logs through one.
type Trace struct {
	// WaitStart is called when a Lock (or RLock) call starts waiting for
	// a lock that was not free at its first attempt.
	WaitStart func(WaitStartInfo)
	// WaitDone is called when a wait that WaitStart reported ends:
	// acquired (Err nil), after the Acquired of the hold it took, or given
	// up.
	WaitDone func(WaitDoneInfo)
	// Acquired is called when a hold is taken or re-entered.
	Acquired func(AcquiredInfo)
	// Released is called when an Unlock (or RUnlock) ends a hold, or
	// gives up one acquire of it.
	Released func(ReleasedInfo)
	// Renewed is called after each round trip of the Client's watchdog,
	// one per shard. Only a Client's hooks get it, not a lock's own.
	Renewed func(RenewInfo)
	// Lost is called when a hold is found lost.
	Lost func(LostInfo)
	// Reconnected is called when the Client's pub/sub connection broke
	// and is being replaced (every waiter then re-checks, every hold is
	// verified). Only a Client's hooks get it, not a lock's own.
	Reconnected func(ReconnectInfo)
}

// LockInfo names the lock an event is about.
type LockInfo struct {
	// Kind is the lock kind: "reentrant", "fair", "spin", "rwlock",
	// "redlock", "semaphore" or "election".
	Kind string
	// Name is the lock's name.
	Name string
	// Owner is the owner id of the lock value.
	Owner string
	// Read is set for the read side of an rwlock.
	Read bool
}

// WaitStartInfo is passed to [Trace.WaitStart].
type WaitStartInfo struct {
	Lock LockInfo
}

// WaitDoneInfo is passed to [Trace.WaitDone].
type WaitDoneInfo struct {
	Lock LockInfo
	// Waited is how long the wait lasted.
	Waited time.Duration
	// Err is nil when the lock was acquired, and else the error Lock
	// returns.
	Err error
}

// AcquiredInfo is passed to [Trace.Acquired].
type AcquiredInfo struct {
	Lock LockInfo
	// Token is the hold's fencing token.
	Token int64
	// Reentry is set when the lock value re-entered a hold it has. Values
	// that share an owner id ([WithOwner]) share one hold in Redis, but
	// each reports its own: the first acquire of each is not a re-entry.
	Reentry bool
	// Contended is set when the call had to wait for the lock.
	Contended bool
}

// ReleasedInfo is passed to [Trace.Released].
type ReleasedInfo struct {
	Lock LockInfo
	// Token is the released hold's fencing token: with Lock, it tells
	// apart the holds one value may have at once (a semaphore's).
	Token int64
	// Held is how long the hold lasted, from the acquire that began it.
	Held time.Duration
	// Ended is set when the release ended the lock value's hold (its
	// count reached 0). With values that share an owner id
	// ([WithOwner]), the hold in Redis lasts until the last of them
	// ends its own.
	Ended bool
	// Err is what Unlock returns: nil, or an error matching ErrLost.
	Err error
}

// RenewInfo is passed to [Trace.Renewed].
type RenewInfo struct {
	// Holds is how many holds the round trip renewed or tried to.
	Holds int
	// Renewed, Retry and Lost count the holds whose lease was renewed (a
	// fixed lease's, see [WithLease]: verified, found there), whose
	// renewal failed and will be tried again, and that were found gone. A
	// hold that ended while its renewal was on its way (released, or
	// reported lost at its lease's end) counts in none of them.
	Renewed, Retry, Lost int
	// Took is how long the round trip took.
	Took time.Duration
	// Err is the error of a failed round trip, if any.
	Err error
}

// LostInfo is passed to [Trace.Lost].
type LostInfo struct {
	Lock LockInfo
	// Token is the lost hold's fencing token.
	Token int64
	// Held is how long the hold lasted until it was found lost.
	Held time.Duration
	// Err matches ErrLost and says why: found gone, not renewed in time,
	// a fixed lease ended, the Client closed, WithMaxHold.
	Err error
}

// ReconnectInfo is passed to [Trace.Reconnected].
type ReconnectInfo struct {
	// Err is why the old connection was dropped: its error (an EOF when
	// the server closed it, say), a health check that got no reply, or,
	// on a Cluster, the master of its channels' slot changed.
	Err error
}

// renewed reports a watchdog round trip to c's hooks.
func (c *Client) renewed(r watchdog.Round) {
	traces := c.Traces()
	if len(traces) == 0 {
		return
	}
	info := RenewInfo{Holds: r.Holds, Renewed: r.Renewed, Retry: r.Retry, Lost: r.Gone, Took: r.Took, Err: r.Err}
	for _, t := range traces {
		if t.Renewed != nil {
			callHook(func(t *Trace) { t.Renewed(info) }, t)
		}
	}
}

// reconnected reports a broken pub/sub connection to c's hooks, and err,
// why it broke.
func (c *Client) reconnected(err error) {
	for _, t := range c.Traces() {
		if t.Reconnected != nil {
			callHook(func(t *Trace) { t.Reconnected(ReconnectInfo{Err: err}) }, t)
		}
	}
}

// callHook calls f with t, and recovers a panic of the hook f calls (see
// [Trace]).
func callHook(f func(*Trace), t *Trace) {
	defer func() { _ = recover() }()
	f(t)
}
