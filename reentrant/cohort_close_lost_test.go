package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_Close_reports_the_lent_hold_lost_before_it_returns
// closes the Client of a Mutex in cohort mode that holds the lock, and
// checks at once, as Close promises for every hold still open: its Token
// is 0, its lost channel closed, its Context ended with a cause matching
// ErrClosed. The hold is lent to the Mutex from the process's hold in
// Redis, which Close reports lost; the lent hold must not learn of it
// only a moment later. Many rounds, as a loss passed on in the background
// arrives in time now and then.
func TestLocalHandoff_Close_reports_the_lent_hold_lost_before_it_returns(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	for range 30 {
		lc := lockkit.New(c)
		m := reentrant.New(lc, redistest.Unique(t), reentrant.WithLocalHandoff(8, time.Second))
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		held := m.Context(context.Background())
		if err := lc.Close(); err != nil {
			t.Fatal(err)
		}
		if tok := m.Token(); tok != 0 {
			t.Fatalf("Token() = %d once Close returned; want 0", tok)
		}
		select {
		case <-m.Lost():
		default:
			t.Fatal("Lost() still open once Close returned")
		}
		if cause := context.Cause(held); !errors.Is(cause, lockkit.ErrClosed) {
			t.Fatalf("the hold's Context ended with %v once Close returned; want ErrClosed", cause)
		}
		redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrClosed)
	}
}
