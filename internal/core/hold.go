package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit/watchdog"
)

// Hold is one hold: from the acquire that minted its token to the release
// that ended it or the moment it was found lost.
type Hold struct {
	// Token is the fencing token minted when the hold began.
	Token int64
	// Count is how many acquires of this holder the hold stands for and
	// that were not released yet. It differs from the count in Redis when
	// lock values share an owner id.
	Count int64
	// unlockID identifies an Unlock whose outcome is unknown (its reply was
	// lost), so that the next Unlock retries it instead of unlocking twice.
	unlockID string

	wh    *watchdog.Hold // renews the lease, or times a fixed one
	since time.Time      // when the acquire that began the hold was sent

	// unlocking is set while an Unlock's outcome is unknown (unlockID is
	// kept for its retry). A renewal that finds the hold gone meanwhile
	// does not report it lost: the Unlock may have ended it, and its retry
	// tells (a token it released is remembered).
	unlocking atomic.Bool

	*LostSignal

	endOnce sync.Once
	ended   chan struct{} // closed by End
}

// NewHold returns a new hold, of one acquire, with token.
func NewHold(token int64) *Hold {
	return &Hold{Token: token, Count: 1, LostSignal: NewLostSignal(), ended: make(chan struct{}), since: time.Now()}
}

// End marks h as no longer its holder's current hold: released, dropped
// or replaced. It is idempotent.
func (h *Hold) End() { h.endOnce.Do(func() { close(h.ended) }) }

// Ended returns a channel closed by End.
func (h *Hold) Ended() <-chan struct{} { return h.ended }
