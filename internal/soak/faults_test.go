package soak_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// outcome is what a fault does to a hold held across it, as documented.
type outcome int

const (
	// kept: the hold is kept, its Unlock returns nil.
	kept outcome = iota
	// lost: the hold is reported lost, its Unlock returns ErrLost.
	lost
	// either: the hold is kept or reported lost, and its Unlock says
	// which.
	either
)

// fault is one fault of a soak's rounds.
type fault struct {
	name string
	// hold is what the fault does to a hold held across it.
	hold outcome
	// start injects the fault into e and returns what ends it, which waits
	// until the fault is over, or nil for a fault over when start returns.
	start func(t *testing.T, e *env) (end func())
	// oneSided is set for a fault that leaves side b alone while it lasts.
	oneSided bool
	// lossy is set for a fault that may lose writes acknowledged while it
	// settles (a failover: replication is asynchronous, and the sentinels
	// may promote a second replica that had not got them), so that a
	// waiter's hold taken meanwhile may be reported lost too.
	lossy bool
}

// stallFor is how long a stall lasts: longer than the lease, and a
// second, which Server.Stall needs.
const stallFor = 2 * lease

// faults are the faults of a soak on servers of its own, in the order of
// the rounds: the first leaves the holds alone, so that the state after
// it is the one every later round comes back to.
func faults() []fault {
	return []fault{
		{name: "pub/sub connections killed", hold: kept, start: killPubsub},
		{name: "normal connections killed", hold: kept, start: killNormal},
		{name: "stall past the lease", hold: either, start: stall},
		{name: "restart", hold: lost, start: restart},
		{name: "network of the holder's side cut", hold: lost, start: cut, oneSided: true},
		{name: "server down past the lease", hold: lost, start: down},
	}
}

// killPubsub kills every pub/sub connection of e's servers, once the
// waiters have subscribed; what ends it waits until side b's notifier has
// connected again and the waiters have subscribed again. A kind that
// waits without pub/sub has none to kill.
func killPubsub(t *testing.T, e *env) func() {
	if e.K.Polls {
		return nil
	}
	e.WaitersSubscribed(t)
	before := e.B.Reconnects.Load()
	e.Admin(t, "client", "kill", "type", "pubsub")
	return func() {
		redistest.Eventually(t, callBound, "side b's notifier to reconnect", func() bool { return e.B.Reconnects.Load() > before })
		e.WaitersSubscribed(t)
	}
}

// killNormal kills every normal connection of e's servers; what ends it
// waits until side a's watchdog has renewed since, unless a holds
// nothing (a latch).
func killNormal(t *testing.T, e *env) func() {
	before := e.A.Renewals.Load()
	e.Admin(t, "client", "kill", "type", "normal")
	return func() {
		if e.K.Owner == nil {
			return
		}
		redistest.Eventually(t, callBound, "side a's watchdog to renew", func() bool { return e.A.Renewals.Load() > before })
	}
}

// stall stalls every server of e for stallFor; what ends it waits until
// each answers again.
func stall(t *testing.T, e *env) func() {
	for _, s := range e.Servers {
		s.Stall(t, stallFor)
	}
	return func() {
		for _, rc := range e.Admins {
			redistest.Eventually(t, callBound, "the stalled server to answer", func() bool {
				return rc.Ping(redistest.Ctx(t, callBound)).Err() == nil
			})
		}
	}
}

// restart kills every server of e and starts it again empty.
func restart(t *testing.T, e *env) func() {
	for _, s := range e.Servers {
		s.Restart(t)
	}
	return nil
}

// down kills every server of e; what ends it starts them again, empty.
// A round waits for the hold to be reported lost in between.
func down(t *testing.T, e *env) func() {
	for _, s := range e.Servers {
		s.Kill(t)
	}
	return func() {
		for _, s := range e.Servers {
			s.Restart(t)
		}
	}
}

// cut cuts the network of side a, holder's side; what ends it heals it.
func cut(_ *testing.T, e *env) func() {
	for _, p := range e.A.Proxies {
		p.Cut()
	}
	return func() {
		for _, p := range e.A.Proxies {
			p.Heal()
		}
	}
}
