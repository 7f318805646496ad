package reentrant

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// A settlement is an Unlock in doubt of a Mutex in cohort mode: its release
// reached Redis or not, its reply did not say. The cohort settles it in
// the background, and the Mutex's next Unlock returns how.
type settlement struct {
	co   *cohort       // the cohort that settles it
	done chan struct{} // closed once err and retry are set
	// err is the outcome: nil when the release took effect, an error
	// matching ErrLost when the hold was gone.
	err error
	// retry is set when the Client was closed before the outcome was
	// known: the Mutex's next Unlock tries the release itself, as it does
	// for a hold of a closed Client (see cohort.settle).
	retry bool

	// kick asks for a try at once, cutting the pause short: an Unlock
	// waits for one try, as without cohort mode.
	kick chan struct{}
	// mu guards tried, closed when the try under way (or the next) has
	// failed, and last, the error of the last failed try.
	mu    sync.Mutex
	tried chan struct{}
	last  error
}

// newSettlement returns the settlement of an Unlock in doubt in co.
func newSettlement(co *cohort) *settlement {
	return &settlement{co: co, done: make(chan struct{}), kick: make(chan struct{}, 1), tried: make(chan struct{})}
}

// settle settles s, the Unlock in doubt of co.holder, which keeps the
// local lock meanwhile (co.releasing is set): it calls co.redis's Unlock
// again, spaced by core.SettleRetry, until Redis answers. That Unlock
// returns the outcome once co.redis settled its release in the background,
// or tries the release again itself, with the same unlock id, so that it
// never releases twice. The hold then ends, lost if the release found it
// gone, and the local lock passes on: a failed Unlock that is never called
// again keeps the process's other Mutexes out only while Redis does not
// answer, as without cohort mode. When the Client is closed first, the
// holder is told its hold is lost, and the outcome is left to its next
// Unlock.
func (co *cohort) settle(s *settlement) {
	c := co.key.c
	for n := 0; ; n++ {
		ctx, cancel := core.Detached(context.Background())
		err := co.redis.Unlock(ctx)
		cancel()
		if !core.InDoubt(err) || errors.Is(err, lockkit.ErrWrongKind) {
			s.err = err
			break
		}
		s.mu.Lock()
		s.last = err
		close(s.tried)
		s.tried = make(chan struct{})
		s.mu.Unlock()
		if c.Err() != nil {
			s.retry = true
			break
		}
		t := time.NewTimer(core.SettleRetry.Bound(n))
		select {
		case <-t.C:
		case <-s.kick:
		case <-c.Done():
		}
		t.Stop()
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

// settled asks the cohort to try the release of m's Unlock in doubt s at
// once, and waits for that try, or until ctx ends (when it has ended
// already, for CleanupTimeout). Once s is settled it returns the outcome
// with ok set; ok is false when another Unlock of m took that outcome
// first. While the release fails (Redis does not answer), or when ctx ends
// first, it returns an error with ok set: the outcome is still unknown,
// and the next Unlock asks again. After the Client was closed, it tries
// the release itself.
func (m *Mutex) settled(ctx context.Context, s *settlement) (ok bool, err error) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = core.Detached(ctx)
		defer cancel()
	}
	s.mu.Lock()
	tried := s.tried
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	select {
	case <-s.done:
	case <-tried:
		select {
		case <-s.done: // settled by the try after
		default:
			s.mu.Lock()
			defer s.mu.Unlock()
			return true, s.last
		}
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
