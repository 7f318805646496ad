package core

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
)

// failingTurn is a Turn whose Join always fails with a transient error,
// as a subscription does while the server restarts; its Closed is closed.
type failingTurn struct {
	closed chan struct{}
	joins  chan struct{} // gets one value per Join
}

func (t *failingTurn) Eager() bool                     { return true }
func (t *failingTurn) Args() []any                     { return nil }
func (t *failingTurn) Ready() bool                     { return true }
func (t *failingTurn) Tried(bool, time.Duration)       {}
func (t *failingTurn) Sleep(ctx context.Context) error { return ctx.Err() }
func (t *failingTurn) Leave(bool)                      {}
func (t *failingTurn) Closed() <-chan struct{}         { return t.closed }
func (t *failingTurn) Turn() Turn                      { return t }
func (t *failingTurn) Join(ctx context.Context) error {
	select {
	case t.joins <- struct{}{}:
	default:
	}
	return io.ErrUnexpectedEOF
}

// TestWait_retrying_a_failing_subscription_ends_when_the_waiter_closes:
// a waiter whose subscription fails again and again waits it out, and
// when its notifier (its Client) closes, it returns ErrClosed at once
// rather than at the end of its pause between subscriptions, the longest
// of which is the whole test's ctx here.
func TestWait_retrying_a_failing_subscription_ends_when_the_waiter_closes(t *testing.T) {
	saved := transientRetry
	transientRetry = Backoff{Floor: time.Hour, Cap: time.Hour}
	defer func() { transientRetry = saved }()

	turn := &failingTurn{closed: make(chan struct{}), joins: make(chan struct{}, 1)}
	refused := func(context.Context, ...any) (bool, time.Duration, error) { return false, -1, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Wait(ctx, nil, "l", turn, refused) }()
	select {
	case <-turn.joins:
	case <-ctx.Done():
		t.Fatal("Wait never subscribed")
	}
	close(turn.closed)
	err := <-done
	if !errors.Is(err, lockkit.ErrClosed) {
		t.Fatalf("Wait = %v; want an error matching ErrClosed", err)
	}
}
