package latch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// Latch is a countdown latch on Redis: it opens once [Latch.CountDown] has
// been called count times, by any processes, and [Latch.Await] blocks until
// then. Values with the same name (and prefix) are one latch.
//
// A Latch is safe for concurrent use. Use it through the pointer New
// returns; a zero Latch is not usable (its methods return
// [lockkit.ErrInvalid]).
type Latch struct {
	b     core.Base
	count int
}

// New returns the latch name of client c, opening after count count-downs.
// Every value of one latch should be given the same count: the latch is
// created in Redis by its first count-down, with the count of the value
// that makes it. New does no I/O and cannot fail: invalid arguments (a nil
// client, an empty name, a count below 1 or above [MaxCount], a bad
// option) make every method return an error matching
// [lockkit.ErrInvalid].
func New(c *lockkit.Client, name string, count int, opts ...lockkit.Option) *Latch {
	l := &Latch{b: core.NewBase(c, config.Latch, name, opts), count: count}
	if l.b.Err == nil && (count < 1 || count > MaxCount) {
		l.b.Err = core.Invalid("latch %q: count must be between 1 and %d, got %d", name, MaxCount, count)
	}
	return l
}

// CountDown counts the latch down by one and returns the count left. The
// count-down that reaches zero opens the latch and wakes every waiter, in
// every process; on an open latch CountDown does nothing (its expiry
// included) and returns 0. Each count-down of a closed latch restarts its
// expiry (see [WithExpiry]).
//
// A count-down re-sent by the client after a lost reply counts once, and
// returns the count left when the re-sent one arrives: two count-downs
// may return the same count, and two may return 0. The count returned is
// not a ticket; to know which caller opened the latch, use another
// primitive (a lock's TryLock, say). When CountDown returns a Redis
// error, or ctx ends before the reply, whether it counted is not known (it
// may still arrive): read [Latch.Count] before counting down again. A name held by a lock of another kind is
// [lockkit.ErrWrongKind].
func (l *Latch) CountDown(ctx context.Context) (int, error) {
	if err := l.base().Check(ctx); err != nil {
		return 0, err
	}
	cfg := &l.b.Cfg
	id := core.NewOwner()
	n, err := core.Call(ctx, cfg.Client, func(ctx context.Context) (int64, error) {
		return countDownScript.Run(ctx, cfg.Client.Redis(), []string{cfg.Keys.Base},
			l.count, cfg.Expiry.Milliseconds(), id, cfg.Keys.Channel, config.Latch).Int64()
	}, nil)
	if err != nil {
		return 0, core.Op("count down", cfg.Name, err)
	}
	return int(n), nil
}

// Count returns the count left: 0 once the latch is open, and the count
// given to New while no count-down is recorded in Redis (none was made
// yet, or the latch expired).
func (l *Latch) Count(ctx context.Context) (int, error) {
	if err := l.base().Check(ctx); err != nil {
		return 0, err
	}
	return l.read(ctx, "count")
}

// read returns the count left, as Count does; op names the operation in
// errors.
func (l *Latch) read(ctx context.Context, op string) (int, error) {
	cfg := &l.b.Cfg
	n, err := core.CallUntilClosed(ctx, cfg.Client, func(ctx context.Context) (int64, error) {
		return countScript.Run(ctx, cfg.Client.Redis(), []string{cfg.Keys.Base}, config.Latch).Int64()
	}, nil)
	switch {
	case err != nil:
		return 0, core.Op(op, cfg.Name, err)
	case n < 0:
		return l.count, nil
	}
	return int(n), nil
}

// Await blocks until the latch is open or ctx ends. An open latch returns
// at once, after one round trip.
//
// It reads the count, and while the latch is closed it subscribes to the
// latch's channel through the Client's notifier, waits for Redis to
// confirm the subscription, reads the count again (a count-down that
// opened the latch in between is not missed) and then sleeps until a
// message, or a reconnect of the notifier, says to read it again. It sends
// nothing while it sleeps.
//
// A read that fails (a restart or failover under way, say) does not end
// the wait: Await reads again when the notifier is back, and at the
// latest every [RetryInterval]. Nor does a subscription that fails with a
// network error, or a reply saying the server cannot serve yet: it is
// tried again, 10 ms to 1 s apart. When ctx ends first, the error matches
// both [lockkit.ErrNotObtained] and ctx.Err(), and carries the last such
// failure, if any. A closed Client's error matches [lockkit.ErrClosed],
// a go-redis client closed by its user [redis.ErrClosed], and a name held
// by a lock of another kind is [lockkit.ErrWrongKind]; each ends the wait
// at once, and so does a subscription refused for another reason. Await
// leaves nothing behind: its subscription is dropped (or kept for other
// waiters) when it returns.
func (l *Latch) Await(ctx context.Context) error {
	if err := l.base().Check(ctx); err != nil {
		return err
	}
	cfg := &l.b.Cfg
	w := core.Broadcast{Notifier: cfg.Client.Notifier(), Channel: cfg.Keys.Channel}
	var last error // the last failed read
	err := core.Wait(ctx, nil, cfg.Name, w, func(ctx context.Context, _ ...any) (bool, time.Duration, error) {
		n, err := l.read(ctx, "await")
		switch {
		case err == nil:
			return n == 0, -1, nil
		case ctx.Err() != nil || errors.Is(err, lockkit.ErrWrongKind) || core.ClientClosed(err):
			return false, 0, err
		}
		last = err
		return false, RetryInterval, nil
	})
	if err != nil && last != nil && errors.Is(err, lockkit.ErrNotObtained) {
		return fmt.Errorf("%w (last failure: %w)", err, last)
	}
	return err
}

// RetryInterval is how soon [Latch.Await] reads the count again after a
// read failed, unless a message or a reconnect wakes it sooner.
const RetryInterval = core.ReadRetry

// Name returns the latch's name.
func (l *Latch) Name() string { return l.base().Name() }

// base returns l's Base, or nil for a nil l.
func (l *Latch) base() *core.Base {
	if l == nil {
		return nil
	}
	return &l.b
}
