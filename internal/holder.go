package internal

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit/watchdog"
)

// Holder tracks what one owner holds on one lock: the hold's fencing token
// and count, the watchdog renewing it, and its lost signal. The lock kinds
// drive it from their acquire and release paths; it does no I/O itself
// except through the scripts they hand to Release and Suspended.
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
	// unlockID identifies an Unlock whose outcome is unknown (its reply was
	// lost), so that the next Unlock retries it rather than unlocking twice.
	unlockID string

	*LostSignal
	wh    *watchdog.Hold
	timer *time.Timer
}

// current returns the current hold, which may be lost, or nil.
func (r *Holder) current() *Hold {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.h
}

// Live returns the current hold unless it is lost.
func (r *Holder) Live() *Hold {
	h := r.current()
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
		old.unlockID = ""
		r.mu.Unlock()
		r.Abort(pre)
		return old
	}
	h := &Hold{Token: token, Count: 1, LostSignal: NewLostSignal()}
	r.h = h
	r.mu.Unlock()
	if old != nil {
		r.stop(old)
		r.lose(old, nil)
	}
	if r.wd != nil {
		if pre == nil {
			pre = r.wd.Register()
		}
		h.wh = pre
		l := r.renew(token)
		l.OnLost = func(cause error) { r.lose(h, cause) }
		pre.Start(l, sent)
	} else {
		h.timer = time.AfterFunc(time.Until(sent.Add(r.ttl)), func() {
			r.lose(h, errLeaseEnded)
		})
	}
	return h
}

// errLeaseEnded is the cause given when a fixed lease runs out.
var errLeaseEnded = errors.New("fixed lease ended")

// lose marks h lost with cause and closes its lost signal. It is idempotent.
func (r *Holder) lose(h *Hold, cause error) { h.Lose(r.name, cause) }

// nextUnlockID returns h.unlockID, choosing a new one if it is empty.
func (r *Holder) nextUnlockID(h *Hold) string {
	if h.unlockID == "" {
		// Unique across processes: holders that share an owner id (see
		// Options.Owner) must not mistake each other's unlocks for retries.
		h.unlockID = processID + ":u" + strconv.FormatUint(unlockSeq.Add(1), 10)
	}
	return h.unlockID
}

// Release undoes one acquire of the current hold with release, which runs
// the lock kind's release script for hold h under unlock id and returns its
// reply: the owner's remaining count, 0 when the hold ended, -1 when it is
// not there. op names the operation in errors. It returns ErrNotHeld when
// nothing is held and ErrLost when the hold is lost or gone; a lost hold is
// still released, if its key lingers, for the waiters' sake (the token
// fences this). After a Redis error the outcome is unknown and the hold
// keeps its unlock id, so the next Release asks again without releasing
// twice. The caller serialises its acquires and releases.
func (r *Holder) Release(ctx context.Context, op string, release func(ctx context.Context, h *Hold, id string) (int64, error)) error {
	h := r.current()
	if h == nil {
		return NotHeld(r.name)
	}
	id := r.nextUnlockID(h)
	if h.Err() != nil {
		// A fixed lease ends by our clock a little before the server's.
		_, _ = release(ctx, h, id)
		return r.forget(h)
	}
	r.suspend(h)
	n, err := release(ctx, h, id)
	switch {
	case err != nil:
		r.resume(h)
		return Op(op, r.name, err)
	case n < 0:
		return r.gone(h)
	case n == 0:
		r.released(h)
	default:
		// Still held: by this holder's other acquires, or by another holder
		// sharing the owner id once this one's are all undone.
		h.unlockID = ""
		if h.Count--; h.Count > 0 {
			r.resume(h)
		} else {
			r.released(h)
		}
	}
	return nil
}

// Suspended runs force, which removes holds whoever owns them, with the
// renewal of the current hold (if any) suspended; the hold ends when force
// succeeds and is renewed again when it fails.
func (r *Holder) Suspended(force func() error) error {
	h := r.current()
	if h != nil {
		r.suspend(h)
	}
	err := force()
	switch {
	case h == nil:
	case err != nil:
		r.resume(h)
	default:
		r.released(h)
	}
	return err
}

// suspend pauses the renewal of h while a release is in flight.
func (r *Holder) suspend(h *Hold) {
	if h.wh != nil {
		h.wh.Suspend()
	}
}

// resume undoes Suspend after a release that left h held or failed.
func (r *Holder) resume(h *Hold) {
	if h.wh != nil {
		h.wh.Resume()
	}
}

// released ends h after the release that freed it.
func (r *Holder) released(h *Hold) {
	r.stop(h)
	r.clear(h)
}

// gone ends h after Redis said it is not there, and returns its ErrLost.
func (r *Holder) gone(h *Hold) error {
	r.lose(h, nil)
	return r.forget(h)
}

// forget drops h, already lost, from the holder and returns its error.
func (r *Holder) forget(h *Hold) error {
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
	if h := r.current(); h != nil {
		return h.Done()
	}
	return nil
}
