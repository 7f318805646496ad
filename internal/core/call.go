package core

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/slotmap"
)

// errNoReply reports a request whose ctx ended (or whose Client closed,
// see CallUntilClosed) before its reply came: what it did, if anything, is
// not known yet. errNotSent reports one whose ctx had ended (or Client
// closed) before it was sent.
var (
	errNoReply = errors.New("no reply before the context ended or the Client closed")
	errNotSent = errors.New("not sent: the context had ended or the Client closed")
)

// Call sends one request to Redis through do and returns its outcome, or,
// when ctx ends first, an error matching ctx.Err() at once (errNoReply;
// errNotSent when ctx had ended before). A go-redis client honours ctx
// deadlines on the socket only with ContextTimeoutEnabled; without it a
// server that stopped answering holds a call until the client's ReadTimeout
// (5 s by default), times its retries. A request left behind this way runs
// on, on a context that ctx no longer cancels, in a goroutine of the Client
// (see lockkit.Client.Go); late, unless nil, gets its outcome when it
// comes, to undo what it did. An error that says a Cluster client's map
// of slots may be out of date has it read the map again (slotmap.Check).
func Call[T any](ctx context.Context, c *lockkit.Client, do func(context.Context) (T, error), late func(T, error)) (T, error) {
	return call(ctx, c, nil, do, late)
}

// CallUntilClosed is Call for a request of a caller that waits for a lock
// (an acquire, a read of what it waits for): when c closes while the
// request is on its way, it returns too, once the reply came or
// ClosedGrace passed, in the latter case with an error matching
// lockkit.ErrClosed (and errNoReply), leaving the request behind as for
// an ended ctx. A release does not use it: it still frees what was
// held once c is closed. With a ctx that cannot end (no Done channel) it
// is Call: the request is sent from the caller's goroutine, at no cost.
func CallUntilClosed[T any](ctx context.Context, c *lockkit.Client, do func(context.Context) (T, error), late func(T, error)) (T, error) {
	return call(ctx, c, c.Done(), do, late)
}

// call is Call, which also returns when closed (nil: never) is closed,
// with an error matching lockkit.ErrClosed.
func call[T any](ctx context.Context, c *lockkit.Client, closed <-chan struct{}, do func(context.Context) (T, error), late func(T, error)) (T, error) {
	var zero T
	select {
	case <-closed:
		return zero, fmt.Errorf("%w: %w", errNotSent, lockkit.ErrClosed)
	default:
	}
	if ctx.Done() == nil {
		v, err := do(ctx)
		slotmap.Check(c.Redis(), err)
		return v, err
	}
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("%w: %w", errNotSent, err)
	}
	type outcome struct {
		v   T
		err error
	}
	// state settles once who takes the outcome: the caller (delivered) or
	// late (abandoned).
	const (
		pending = iota
		delivered
		abandoned
	)
	var state atomic.Int32
	reply := make(chan outcome, 1)
	c.Go(func() {
		v, err := do(context.WithoutCancel(ctx))
		slotmap.Check(c.Redis(), err)
		if state.CompareAndSwap(pending, delivered) {
			reply <- outcome{v, err}
		} else if late != nil {
			late(v, err)
		}
	})
	var why error
	select {
	case o := <-reply:
		return o.v, o.err
	case <-ctx.Done():
		why = ctx.Err()
	case <-closed:
		// A reply on its way still comes in time for the caller to settle
		// what the request did itself (give back what an acquire took),
		// unless the server does not answer.
		why = lockkit.ErrClosed
		if o, ok := closedGrace(ctx, reply); ok {
			return o.v, o.err
		}
	}
	if !state.CompareAndSwap(pending, abandoned) {
		o := <-reply // it came as ctx ended, or c closed
		return o.v, o.err
	}
	return zero, fmt.Errorf("%w: %w", errNoReply, why)
}

// closedFirst returns err, the failure of a request, as the error of c's
// Close when c was closed while the request was on its way: the call ends
// as every call of a closed Client does.
func closedFirst(c *lockkit.Client, err error) error {
	if cerr := c.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (the request: %w)", cerr, err)
	}
	return err
}
