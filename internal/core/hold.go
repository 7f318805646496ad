package core

import (
	"sync"

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

	wh *watchdog.Hold // renews the lease, or times a fixed one

	lostOnce sync.Once
	lost     chan struct{} // closed once, when the hold is found lost
	err      error         // ErrLost with its cause; written before lost is closed
}

func newHold(token int64) *Hold {
	return &Hold{Token: token, Count: 1, lost: make(chan struct{})}
}

// lose marks the hold on lock name lost with cause (nil when it simply
// vanished) and closes its lost channel. It is idempotent.
func (h *Hold) lose(name string, cause error) {
	h.lostOnce.Do(func() {
		h.err = Lost(name, cause)
		close(h.lost)
	})
}

// Done returns a channel that is closed when the hold is found lost.
// Nothing is ever sent on it.
func (h *Hold) Done() <-chan struct{} { return h.lost }

// Err returns an error matching ErrLost (with its cause) once the hold is
// lost, and nil before.
func (h *Hold) Err() error {
	select {
	case <-h.lost:
		return h.err
	default:
		return nil
	}
}
