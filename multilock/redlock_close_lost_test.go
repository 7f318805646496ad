package multilock_test

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_the_Close_that_leaves_no_majority_reports_the_hold_lost_before_it_returns:
// a RedLock holds the lock on three nodes. Closing the first node's
// Client leaves a majority holding it: the hold lasts. Closing the
// second's leaves one node of three: by the time that Close returns, the
// hold is lost (its lost signal closed, the Lost hook called, with an
// error matching ErrLost and ErrClosed) and its Token is 0.
func TestRedLock_the_Close_that_leaves_no_majority_reports_the_hold_lost_before_it_returns(t *testing.T) {
	for range 10 {
		_, clients := masters(t, 3)
		lcs := lockkits(t, clients)
		var lost []error
		r := multilock.NewRedLock(lcs, redistest.Unique(t), lockkit.WithTrace(&lockkit.Trace{
			Lost: func(i lockkit.LostInfo) { lost = append(lost, i.Err) },
		}))
		redistest.MustLock(t, r)
		if err := lcs[0].Close(); err != nil {
			t.Fatal(err)
		}
		if redistest.Closed(r.Lost()) || len(lost) != 0 || r.Token() == 0 {
			t.Fatalf("after one node's Client closed: lost signal closed %v, Lost hook %v, Token %d; want the hold kept by the other two", redistest.Closed(r.Lost()), lost, r.Token())
		}
		if err := lcs[1].Close(); err != nil {
			t.Fatal(err)
		}
		if !redistest.Closed(r.Lost()) || len(lost) != 1 || r.Token() != 0 {
			t.Fatalf("when the second node's Client's Close returned: lost signal closed %v, Lost hook %v, Token %d; want the hold lost", redistest.Closed(r.Lost()), lost, r.Token())
		}
		if !errors.Is(lost[0], lockkit.ErrLost) || !errors.Is(lost[0], lockkit.ErrClosed) {
			t.Errorf("the Lost hook's error = %v; want ErrLost and ErrClosed", lost[0])
		}
		redistest.WantErr(t, r.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)
	}
}
