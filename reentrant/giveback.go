package reentrant

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// A lostRelease is the release in Redis of a hold of a cohort that was lost
// while lent: the process gives it back (freeing its key if it lingers),
// which ends it there and reports its end, Released with its loss. The
// local lock stays taken meanwhile, with no holder (see cohort.giving):
// a hold taken from Redis before the lost one is given back would replace
// it, unreported and unreleased.
type lostRelease struct {
	hold *core.Hold
	done chan struct{} // closed once given back (or the Client closed)
	// mu guards tried, closed when the try under way (or the next) has
	// failed for want of an answer from Redis.
	mu    sync.Mutex
	tried chan struct{}
}

// newLostRelease returns the giving back of hold.
func newLostRelease(hold *core.Hold) *lostRelease {
	return &lostRelease{hold: hold, done: make(chan struct{}), tried: make(chan struct{})}
}

// tryGive tries once, within ctx, to give g's hold back, and reports whether
// that is over: Redis answered (the release ran, or refused a name that is
// another kind's now), or the Client is closed, which leaves the hold to
// its lease. When it is not, the tries waiting for it are told. It
// returns the release's error.
func (co *cohort) tryGive(ctx context.Context, g *lostRelease) (bool, error) {
	err := co.redis.Unlock(ctx)
	if co.redis.x.H.Current() != g.hold || errors.Is(err, lockkit.ErrWrongKind) || co.key.c.Err() != nil {
		return true, err
	}
	g.mu.Lock()
	close(g.tried)
	g.tried = make(chan struct{})
	g.mu.Unlock()
	return false, err
}

// giveLater gives g's hold back, asking again, spaced by core.SettleRetry,
// until it is over (see tryGive), and then passes the local lock on: a lost
// hold whose release cannot reach Redis keeps the process's other Mutexes
// out only while Redis does not answer, as an Unlock in doubt does (see
// settle). co.giving is g, with the give-back's join (see finish).
func (co *cohort) giveLater(g *lostRelease) {
	c := co.key.c
	for n := 0; ; n++ {
		t := time.NewTimer(core.SettleRetry.Bound(n))
		select {
		case <-t.C:
		case <-c.Done(): // the next try ends it
		}
		t.Stop()
		ctx, cancel := core.Detached(context.Background())
		over, _ := co.tryGive(ctx, g)
		cancel()
		if over {
			break
		}
	}
	co.finish(g)
}

// finish ends g, given back (see given), and undoes the give-back's join:
// whoever starts giving a hold back joins co for it, so that co stays the
// process's cohort until then, and a Lock that comes meanwhile waits in it
// rather than take a hold of a new cohort before this one's is given back.
func (co *cohort) finish(g *lostRelease) {
	co.mu.Lock()
	co.given(g)
	co.unlock()
	co.leave()
}

// given ends g, given back: the local lock passes on, and the TryLocks
// and Unlocks waiting for g go on. co.mu held.
func (co *cohort) given(g *lostRelease) {
	co.passOn()
	co.giving, co.wake = nil, append(co.wake, g.done)
}

// wait waits until g's hold is given back, or ctx ends (when it has
// ended already, for CleanupTimeout): the Unlock of a tenure lost with
// g's hold returns once that release in Redis was made, within its ctx,
// as the Unlock of a lost hold does without cohort mode. A ctx without a
// deadline waits for one try at most: until the try under way (or the
// next) fails for want of an answer, as a call without a deadline gives
// up when its client's timeouts end it.
func (g *lostRelease) wait(ctx context.Context) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = core.Detached(ctx)
		defer cancel()
	}
	var tried chan struct{} // nil, which never fires, with a deadline
	if _, ok := ctx.Deadline(); !ok {
		g.mu.Lock()
		tried = g.tried
		g.mu.Unlock()
	}
	select {
	case <-g.done:
	case <-tried:
	case <-ctx.Done():
	}
}
