package otel

import (
	"sync"
	"time"

	"github.com/lockkit/lockkit"
)

// ledger remembers which holds are live and how many waits are under way,
// per lock and owner, so that lockkit.lock.held and lockkit.lock.waiting
// go down only for what they counted up. A hold may be reported ended
// twice (found lost by the watchdog, then unlocked), and a hold or a wait
// that began before Instrument ends without having begun as far as the
// Trace knows; without the ledger either would drive the counters below
// their true value, even negative. A hold's key is its LockInfo and its
// token: one value may have several holds at once (a semaphore's
// Acquires), each with a token of its own; and lock values that share an
// owner id (lockkit.WithOwner) share one hold, which each of them reports
// as its own: the hold lasts from the first of them that took it to the
// last that let it go.
//
// Entries live as long as what they count: a hold until its release or
// loss (Client.Close reports every open hold lost), a wait until it ends.
type ledger struct {
	mu    sync.Mutex
	holds map[holdKey]*liveHold    // live holds; guarded by mu
	waits map[lockkit.LockInfo]int // waits under way; guarded by mu
}

// holdKey names one hold: the lock value's and its token.
type holdKey struct {
	lock  lockkit.LockInfo
	token int64
}

// liveHold is a live hold of the ledger.
type liveHold struct {
	values int       // lock values that hold it
	lost   int       // values of them told of its loss, not yet unlocked
	shared bool      // more than one value held it at once
	since  time.Time // when the first of them took it
}

func newLedger() *ledger {
	return &ledger{holds: map[holdKey]*liveHold{}, waits: map[lockkit.LockInfo]int{}}
}

// hold records that a lock value took the hold k, and reports whether the
// hold began: false when another value holds it already (they share an
// owner id, and this one re-entered it).
func (g *ledger) hold(k holdKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if h, ok := g.holds[k]; ok {
		h.values++
		h.shared = true
		return false
	}
	g.holds[k] = &liveHold{values: 1, since: time.Now()}
	return true
}

// end records that a lock value's hold k ended, held for held as that
// value counts it: released, or, with lost, told of its loss (the Lost
// hook). It reports whether the hold was known (it began after Instrument,
// and has not ended), and whether it ended now, and how long it lasted
// then, from the first value's acquire: a hold goes on while other values
// hold it.
func (g *ledger) end(k holdKey, held time.Duration, lost bool) (d time.Duration, known, ended bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.endLocked(k, held, lost)
}

// endLocked is end, with g.mu held.
func (g *ledger) endLocked(k holdKey, held time.Duration, lost bool) (d time.Duration, known, ended bool) {
	h, ok := g.holds[k]
	if !ok {
		return 0, false, false
	}
	if h.values--; h.values > 0 {
		if lost {
			h.lost++
		}
		return 0, true, false
	}
	delete(g.holds, k)
	if h.shared {
		// held is the last value's: the hold began with the first.
		held = max(held, time.Since(h.since))
	}
	return held, true, true
}

// unlockedLost records that an Unlock of a lock value's hold k found it
// lost, and reports what end does: a value told of the loss before (the
// Lost hook, which lockkit reports first) ended its part then, and this
// ends nothing.
func (g *ledger) unlockedLost(k holdKey, held time.Duration) (d time.Duration, ended bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if h, ok := g.holds[k]; ok && h.lost > 0 {
		h.lost--
		return 0, false
	}
	d, _, ended = g.endLocked(k, held, false)
	return d, ended
}

// wait records that a wait for k began.
func (g *ledger) wait(k lockkit.LockInfo) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waits[k]++
}

// waited records that a wait for k ended, and reports whether one was
// recorded as under way.
func (g *ledger) waited(k lockkit.LockInfo) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.waits[k]
	if !ok {
		return false
	}
	if n <= 1 {
		delete(g.waits, k)
	} else {
		g.waits[k] = n - 1
	}
	return true
}
