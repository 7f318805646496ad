package core

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
)

// lateCtx is a ctx whose deadline has passed but whose timer has not run
// yet: Err is nil until Done is first called, and Done is closed by that
// call, as a timer that runs the moment someone waits for it.
type lateCtx struct {
	context.Context
	done  chan struct{}
	asked bool
}

// newLateCtx returns a lateCtx whose deadline passed a moment ago.
func newLateCtx() *lateCtx {
	return &lateCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *lateCtx) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func (c *lateCtx) Done() <-chan struct{} {
	if !c.asked {
		c.asked = true
		close(c.done)
	}
	return c.done
}

func (c *lateCtx) Err() error {
	if !c.asked {
		return nil
	}
	return context.DeadlineExceeded
}

// TestCtxError_past_the_deadline_matches_the_ctx_Err_read_after_it checks
// that an attempt cut short by ctx's deadline before ctx reported it
// returns an error matching ErrNotObtained and the ctx.Err() that the
// caller reads right after.
func TestCtxError_past_the_deadline_matches_the_ctx_Err_read_after_it(t *testing.T) {
	ctx := newLateCtx()
	err := CtxError(ctx, "name", errors.New("i/o timeout"))
	cerr := ctx.Err()
	if !errors.Is(err, lockkit.ErrNotObtained) || cerr == nil || !errors.Is(err, cerr) {
		t.Fatalf("CtxError = %v, then ctx.Err() = %v; want ErrNotObtained matching ctx.Err()", err, cerr)
	}
}
