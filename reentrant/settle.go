package reentrant

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// The bounds of the pause between two tries of a cohort's release in
// doubt (see cohort.settle): it doubles from the first to the second.
const (
	settleFirstPause = 20 * time.Millisecond
	settleMaxPause   = 2 * time.Second
)

// A settlement is an Unlock in doubt of a Mutex in cohort mode: its release
// reached Redis or not, its reply did not say. The cohort settles it in
// the background, and the Mutex's next Unlock returns how.
type settlement struct {
	done chan struct{} // closed once err and retry are set
	// err is the outcome: nil when the release took effect, an error
	// matching ErrLost when the hold was gone.
	err error
	// retry is set when the Client was closed before the outcome was
	// known: the Mutex's next Unlock tries the release itself, as it does
	// for a hold of a closed Client (see cohort.settle).
	retry bool
	co    *cohort // the cohort that settles it
}

// settle settles s, the Unlock in doubt of co.holder, which keeps the
// local lock meanwhile (co.releasing is set): it tries the release again,
// with the same unlock id, so that it never releases twice, until Redis
// answers. The hold then ends, lost if the release found it gone, and the
// local lock passes on: a failed Unlock that is never called again keeps
// the process's other Mutexes out only while Redis does not answer,
// as without cohort mode. When the Client is closed first, the holder is
// told its hold is lost, and the outcome is left to its next Unlock.
func (co *cohort) settle(s *settlement) {
	c := co.key.c
	pause := settleFirstPause
	for {
		ctx, cancel := core.Detached(context.Background())
		err := co.redis.Unlock(ctx)
		cancel()
		if err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrWrongKind) {
			s.err = err
			break
		}
		if c.Err() != nil {
			s.retry = true
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-c.Done():
			t.Stop()
		}
		pause = min(2*pause, settleMaxPause)
	}
	co.mu.Lock()
	switch {
	case s.retry:
		co.tenure.Lose(co.redis.Name(), lockkit.ErrClosed)
	case errors.Is(s.err, lockkit.ErrWrongKind):
		// The name is another kind's now: the hold is gone.
		co.tenure.Lose(co.redis.Name(), s.err)
	}
	co.ended()
	close(s.done)
}

// settled waits until the cohort has settled m's Unlock in doubt s, or
// until ctx ends (when it has ended already, for CleanupTimeout), and
// returns s's outcome with ok set; ok is false when another Unlock of m
// took that outcome first. An Unlock whose ctx ends first
// returns an error: the outcome is still unknown, and the next Unlock
// waits again. After the Client was closed, it tries the release itself.
func (m *Mutex) settled(ctx context.Context, s *settlement) (ok bool, err error) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = core.Detached(ctx)
		defer cancel()
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		return true, core.Op("unlock", m.x.Cfg.Name, ctx.Err())
	}
	if !m.doubt.CompareAndSwap(s, nil) {
		return false, nil
	}
	if s.retry {
		return true, s.co.redis.Unlock(ctx)
	}
	return true, s.err
}
