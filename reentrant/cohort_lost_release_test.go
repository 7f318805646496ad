package reentrant_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_lost_hold_whose_release_goes_unanswered_is_released_and_reported_before_the_next_hold:
// the process's hold is lost (its key vanished and the watchdog said so)
// while a Mutex holds it, and the process's release of the lost hold in
// Redis is not sent. The process asks again until Redis answers, and only
// then lets another Mutex of it take the lock: when that Mutex's Lock
// returns, the Trace has reported the lost hold's end once (Released,
// ended, with its loss and token), and its own hold has a larger token.
// The lost holder's Unlock then returns the loss and reports nothing
// more; the other's Unlock reports its own hold's end.
func TestLocalHandoff_a_lost_hold_whose_release_goes_unanswered_is_released_and_reported_before_the_next_hold(t *testing.T) {
	refuse := &redistest.RefuseSend{Match: isRelease}
	_, c, lc, name := hookedProcess(t, refuse)
	ctx := redistest.Ctx(t, redistest.Hang)
	var ev events
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(time.Minute), lockkit.WithTrace(ev.trace())}
	holder, other := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	lost := loseLoadedHold(ctx, t, c, lc, holder, refuse.Arm)
	redistest.Receive(t, holder.Lost(), redistest.Hang, "the holder's lost signal")

	redistest.MustLock(t, other)
	if refuse.Armed() {
		t.Fatal("the lost hold's release was never refused")
	}
	s := ev.snapshot()
	if len(s.released) != 2 {
		t.Fatalf("Released when another Mutex took the lock: %+v; want the first hold's, then the lost one's", s.released)
	}
	if r := s.released[1]; r.Token != lost || !r.Ended || !errors.Is(r.Err, lockkit.ErrLost) {
		t.Errorf("Released of the lost hold = %+v; want its end, token %d, with its loss", r, lost)
	}
	next := other.Token()
	if next <= lost {
		t.Errorf("the next hold's token %d after the lost hold's %d: want a larger one", next, lost)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.MustUnlock(t, other)
	s = ev.snapshot()
	if len(s.released) != 3 || s.released[2].Token != next || !s.released[2].Ended || s.released[2].Err != nil {
		t.Errorf("Released after both Unlocks: %+v; want one more, the end of hold %d", s.released, next)
	}
	if len(s.acquired) != 3 || len(s.lost) != 1 {
		t.Errorf("Acquired %+v, Lost %+v; want three holds, one lost", s.acquired, s.lost)
	}
	redistest.AssertClean(t, c, name)
}
