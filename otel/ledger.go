package otel

import (
	"sync"

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
// Acquires), each with a token of its own.
//
// Entries live as long as what they count: a hold until its release or
// loss (Client.Close reports every open hold lost), a wait until it ends.
type ledger struct {
	mu    sync.Mutex
	holds map[holdKey]struct{}     // live holds; guarded by mu
	waits map[lockkit.LockInfo]int // waits under way; guarded by mu
}

// holdKey names one hold: the lock value's and its token.
type holdKey struct {
	lock  lockkit.LockInfo
	token int64
}

func newLedger() *ledger {
	return &ledger{holds: map[holdKey]struct{}{}, waits: map[lockkit.LockInfo]int{}}
}

// hold records that the hold k began, and reports whether it was not
// live already.
func (g *ledger) hold(k holdKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.holds[k]; ok {
		return false
	}
	g.holds[k] = struct{}{}
	return true
}

// end records that the hold k ended, and reports whether it was live:
// false when its end was recorded already or it began unrecorded.
func (g *ledger) end(k holdKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.holds[k]; !ok {
		return false
	}
	delete(g.holds, k)
	return true
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
