package core

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/slotmap"
)

// errNoReply reports a request whose ctx ended before its reply came: what
// it did, if anything, is not known yet. errNotSent reports one whose ctx
// had ended before it was sent.
var (
	errNoReply = errors.New("no reply before the context ended")
	errNotSent = errors.New("not sent: the context had ended")
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
	var zero T
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
	select {
	case o := <-reply:
		return o.v, o.err
	case <-ctx.Done():
		if !state.CompareAndSwap(pending, abandoned) {
			o := <-reply // it came as ctx ended
			return o.v, o.err
		}
		return zero, fmt.Errorf("%w: %w", errNoReply, ctx.Err())
	}
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
