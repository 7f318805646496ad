package redistest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// fakeLock is a NamedLocker that answers as told and records the deadline
// of each call's context.
type fakeLock struct {
	err       error // returned by every call
	holds     int
	deadlines []time.Duration // time left on each call's context
}

func (f *fakeLock) Name() string { return "fake" }

func (f *fakeLock) Lock(ctx context.Context) error   { return f.call(ctx) }
func (f *fakeLock) Unlock(ctx context.Context) error { return f.call(ctx) }
func (f *fakeLock) HoldCount(ctx context.Context) (int, error) {
	return f.holds, f.call(ctx)
}

func (f *fakeLock) call(ctx context.Context) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		return errors.New("no deadline")
	}
	f.deadlines = append(f.deadlines, time.Until(deadline))
	return f.err
}

func TestMustLock_and_MustUnlock_bound_the_call_and_fail_on_error(t *testing.T) {
	ok := &fakeLock{}
	wantNoFailure(t, func(tb testing.TB) {
		MustLock(tb, ok)
		MustUnlock(tb, ok)
	})
	for i, d := range ok.deadlines {
		if d <= 9*time.Second || d > 10*time.Second {
			t.Fatalf("call %d had %v left on its context, want 10s", i, d)
		}
	}
	bad := &fakeLock{err: errors.New("boom")}
	wantFailure(t, func(tb testing.TB) { MustLock(tb, bad) }, "Lock(fake): boom")
	wantFailure(t, func(tb testing.TB) { MustUnlock(tb, bad) }, "Unlock(fake): boom")
}

func TestWantHoldCount(t *testing.T) {
	m := &fakeLock{holds: 2}
	wantNoFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 2) })
	if d := m.deadlines[0]; d <= 4*time.Second || d > 5*time.Second {
		t.Fatalf("HoldCount had %v left on its context, want 5s", d)
	}
	wantFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 1) }, "HoldCount = 2, <nil>; want 1")
	m.err = errors.New("down")
	wantFailure(t, func(tb testing.TB) { WantHoldCount(tb, m, 2) }, "HoldCount = 2, down; want 2")
}

func TestWantErr_needs_every_target(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	both := fmt.Errorf("%w and %w", a, b)
	wantNoFailure(t, func(tb testing.TB) { WantErr(tb, both, a, b) })
	wantNoFailure(t, func(tb testing.TB) { WantErr(tb, both) })
	wantFailure(t, func(tb testing.TB) { WantErr(tb, a, a, b) }, `error "a" does not match "b"`)
	wantFailure(t, func(tb testing.TB) { WantErr(tb, nil, a) }, "got nil error")
	wantFailure(t, func(tb testing.TB) { WantErr(tb, nil) }, "got nil error")
}
