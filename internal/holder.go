package internal

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit/watchdog"
)

// Holder tracks what one owner holds on one lock: the hold's fencing token
// and count, the watchdog renewing it, and its lost signal. The lock kinds
// drive it from their acquire and release paths; it does no I/O itself.
type Holder struct {
	name string
	ttl  time.Duration
	wd   *watchdog.Watchdog // nil for fixed leases
	// renew describes the renewal of the hold with a given token.
	renew func(token int64) watchdog.Lease

	mu sync.Mutex // guards h
	h  *Hold      // the current hold, lost or not; nil when nothing is held
}

// NewHolder returns a Holder for lock name. With a nil wd holds have a fixed
// lease of ttl and report themselves lost when it ends; otherwise wd renews
// them as renew describes.
func NewHolder(name string, ttl time.Duration, wd *watchdog.Watchdog, renew func(token int64) watchdog.Lease) *Holder {
	return &Holder{name: name, ttl: ttl, wd: wd, renew: renew}
}

var unlockSeq atomic.Uint64

// Hold is one hold: from the acquire that minted its token to the release
// that freed it or the moment it was found lost.
type Hold struct {
	// Token is the fencing token minted when the hold began.
	Token int64
	// Count is how many acquires of this holder the hold stands for and
	// that were not released yet. It differs from the count in Redis when
	// holders share an owner id.
	Count int64
	// UnlockID identifies an Unlock whose outcome is unknown (its reply was
	// lost), so that the next Unlock retries it rather than unlocking twice.
	UnlockID string

	lost     chan struct{}
	lostOnce sync.Once
	lostErr  error
	wh       *watchdog.Hold
	timer    *time.Timer
}

// Err returns ErrLost (with its cause) once the hold is lost, else nil.
func (h *Hold) Err() error {
	select {
	case <-h.lost:
		return h.lostErr
	default:
		return nil
	}
}

// Current returns the current hold, which may be lost, or nil.
func (r *Holder) Current() *Hold {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.h
}

// Live returns the current hold unless it is lost.
func (r *Holder) Live() *Hold {
	h := r.Current()
	if h == nil || h.Err() != nil {
		return nil
	}
	return h
}

// Prepare registers a watchdog hold before an acquire that may begin a new
// hold is sent. It returns nil when leases are fixed or a live hold exists
// (the acquire can only re-enter it). Pass the result to Acquired or Abort.
func (r *Holder) Prepare() *watchdog.Hold {
	if r.wd == nil || r.Live() != nil {
		return nil
	}
	return r.wd.Register()
}

// Abort undoes Prepare after an acquire that did not take the lock.
func (r *Holder) Abort(pre *watchdog.Hold) {
	if pre != nil {
		pre.Stop()
	}
}

// Acquired records a successful acquire, sent at sent, of the hold with
// token. A token other than the live hold's begins a new hold (the old one,
// if any, is marked lost); the same token re-enters it.
func (r *Holder) Acquired(pre *watchdog.Hold, token int64, sent time.Time) *Hold {
	r.mu.Lock()
	old := r.h
	if old != nil && old.Err() == nil && old.Token == token {
		old.Count++
		old.UnlockID = ""
		r.mu.Unlock()
		r.Abort(pre)
		return old
	}
	h := &Hold{Token: token, Count: 1, lost: make(chan struct{})}
	r.h = h
	r.mu.Unlock()
	if old != nil {
		r.stop(old)
		r.Lose(old, nil)
	}
	if r.wd != nil {
		if pre == nil {
			pre = r.wd.Register()
		}
		h.wh = pre
		l := r.renew(token)
		l.OnLost = func(cause error) { r.Lose(h, cause) }
		pre.Start(l, sent)
	} else {
		h.timer = time.AfterFunc(time.Until(sent.Add(r.ttl)), func() {
			r.Lose(h, errLeaseEnded)
		})
	}
	return h
}

// errLeaseEnded is the cause given when a fixed lease runs out.
var errLeaseEnded = errors.New("fixed lease ended")

// Lose marks h lost with cause and closes its lost signal. It is idempotent.
func (r *Holder) Lose(h *Hold, cause error) {
	h.lostOnce.Do(func() {
		h.lostErr = Lost(r.name, cause)
		close(h.lost)
	})
}

// NextUnlockID returns h.UnlockID, choosing a new one if it is empty.
func (r *Holder) NextUnlockID(h *Hold) string {
	if h.UnlockID == "" {
		// Unique across processes: holders that share an owner id (see
		// Options.Owner) must not mistake each other's unlocks for retries.
		h.UnlockID = processID + ":u" + strconv.FormatUint(unlockSeq.Add(1), 10)
	}
	return h.UnlockID
}

// Suspend pauses the renewal of h while a release is in flight.
func (r *Holder) Suspend(h *Hold) {
	if h.wh != nil {
		h.wh.Suspend()
	}
}

// Resume undoes Suspend after a release that left h held or failed.
func (r *Holder) Resume(h *Hold) {
	if h.wh != nil {
		h.wh.Resume()
	}
}

// Released ends h after the release that freed it.
func (r *Holder) Released(h *Hold) {
	r.stop(h)
	r.clear(h)
}

// Gone ends h after Redis said it is not there, and returns its ErrLost.
func (r *Holder) Gone(h *Hold) error {
	r.Lose(h, nil)
	return r.Forget(h)
}

// Forget drops h, already lost, from the holder and returns its error.
func (r *Holder) Forget(h *Hold) error {
	r.stop(h)
	r.clear(h)
	return h.Err()
}

func (r *Holder) stop(h *Hold) {
	if h.wh != nil {
		h.wh.Stop()
	}
	if h.timer != nil {
		h.timer.Stop()
	}
}

func (r *Holder) clear(h *Hold) {
	r.mu.Lock()
	if r.h == h {
		r.h = nil
	}
	r.mu.Unlock()
}

// Token returns the fencing token of the live hold, or 0.
func (r *Holder) Token() int64 {
	if h := r.Live(); h != nil {
		return h.Token
	}
	return 0
}

// Lost returns the lost signal of the current hold: a channel closed when
// the hold is lost. It is nil when nothing is held.
func (r *Holder) Lost() <-chan struct{} {
	if h := r.Current(); h != nil {
		return h.lost
	}
	return nil
}
