package lockkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestEvery_call_with_an_ended_ctx_returns_its_error_and_changes_nothing
// gives every call of every kind a ctx cancelled already: each returns at
// once, the acquires with an error matching ErrNotObtained and
// context.Canceled, the queries (ForceUnlock, a latch's CountDown and a
// semaphore's SetPermits among them) with one matching context.Canceled;
// none changes anything (the holds stand, the latch's count is the same);
// and the releases release, as promised. Once the holds the set-up took
// are released, nothing is left in Redis.
func TestEvery_call_with_an_ended_ctx_returns_its_error_and_changes_nothing(t *testing.T) {
	srvs := redistest.StartMasters(t, 3)
	var lcs []*lockkit.Client
	for _, srv := range srvs {
		lcs = append(lcs, redistest.Lockkit(t, srv.Client(t)))
	}
	s := everyCall(t, lcs[0], lcs)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range s.calls {
		start := time.Now()
		err := c.call(ended)
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s with an ended ctx took %v", c.name, took)
		}
		switch c.class {
		case acquire:
			wantErrs(t, c.name, err, lockkit.ErrNotObtained, context.Canceled)
		case query:
			wantErrs(t, c.name, err, context.Canceled)
		case release:
			if err != nil {
				t.Errorf("%s with an ended ctx = %v, want it to release", c.name, err)
			}
		}
	}
	ctx := redistest.Ctx(t, redistest.Hang)
	for kind, held := range s.held {
		if ok, err := held(ctx); !ok || err != nil {
			t.Errorf("%s: the hold is gone after calls with an ended ctx (%v, %v)", kind, ok, err)
		}
	}
	if n, err := s.count(ctx); n != 2 || err != nil {
		t.Errorf("latch count after calls with an ended ctx = %d, %v; want 2", n, err)
	}
	s.free(t)
	for _, srv := range srvs {
		s.wantClean(t, srv.Client(t))
	}
}

// wantErrs reports an error (the test goes on) unless err matches every
// one of targets; what names the call.
func wantErrs(t *testing.T, what string, err error, targets ...error) {
	t.Helper()
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Errorf("%s = %v, want an error matching %v", what, err, targets)
			return
		}
	}
}
