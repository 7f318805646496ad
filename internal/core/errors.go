package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/watchdog"
)

// Invalid returns an error matching lockkit.ErrInvalid that explains it.
func Invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", lockkit.ErrInvalid, fmt.Sprintf(format, a...))
}

// NotObtained returns the error of a wait for lock name that ended because
// of cause (normally ctx.Err()): it matches both ErrNotObtained and cause.
func NotObtained(name string, cause error) error {
	if isClosed(cause) {
		return Closed(name)
	}
	return fmt.Errorf("%w: %q: %w", lockkit.ErrNotObtained, name, cause)
}

// Lost returns an error matching ErrLost for lock name, with an optional
// cause (nil when the hold simply vanished).
func Lost(name string, cause error) error {
	switch {
	case cause == nil:
		return fmt.Errorf("%w: %q", lockkit.ErrLost, name)
	case isClosed(cause):
		return fmt.Errorf("%w: %q: %w", lockkit.ErrLost, name, lockkit.ErrClosed)
	}
	return fmt.Errorf("%w: %q: %w", lockkit.ErrLost, name, cause)
}

// NotHeld returns an error matching ErrNotHeld for lock name.
func NotHeld(name string) error {
	return fmt.Errorf("%w: %q", lockkit.ErrNotHeld, name)
}

// Closed returns an error matching ErrClosed for lock name.
func Closed(name string) error {
	return fmt.Errorf("%w: %q", lockkit.ErrClosed, name)
}

// Op wraps err, a failure of operation op on lock name. A script's report
// that the name belongs to another kind becomes ErrWrongKind, and a closed
// notifier or watchdog ErrClosed.
func Op(op, name string, err error) error {
	switch {
	case isClosed(err):
		return Closed(name)
	case redis.HasErrorPrefix(err, "WRONGKIND"):
		msg := strings.TrimPrefix(err.Error(), "WRONGKIND ")
		return fmt.Errorf("%w: %s %q: %s", lockkit.ErrWrongKind, op, name, msg)
	}
	return fmt.Errorf("lockkit: %s %q: %w", op, name, err)
}

// CtxError turns err, the error of an attempt at lock name, into
// NotObtained when ctx has ended, and returns it as is otherwise. An
// ErrWrongKind or ErrClosed is kept whatever ctx says.
func CtxError(ctx context.Context, name string, err error) error {
	if err == nil || errors.Is(err, lockkit.ErrWrongKind) || errors.Is(err, lockkit.ErrClosed) {
		return err
	}
	if cerr := ctxDone(ctx); cerr != nil {
		return NotObtained(name, cerr)
	}
	return err
}

// ctxDone returns ctx.Err(), also once ctx's deadline has passed and ctx
// does not report it yet: a network timeout set from the deadline (or a
// WAIT given the time left) can end a moment before ctx's own timer does.
// It then waits for that timer, so that the error returned matches the
// ctx.Err() that the caller reads afterwards.
func ctxDone(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func isClosed(err error) bool {
	return errors.Is(err, lockkit.ErrClosed) || errors.Is(err, notify.ErrClosed) || errors.Is(err, watchdog.ErrClosed)
}

// ClientClosed reports whether err says that the Client, or the go-redis
// client under it (closed by its user), is closed: nothing sent through it
// will be served again, so a wait or a retry ends at once.
func ClientClosed(err error) bool {
	return errors.Is(err, lockkit.ErrClosed) || errors.Is(err, redis.ErrClosed)
}

// InDoubt reports whether err, the error of a release (an Unlock), leaves
// its outcome unknown: any error but one that says the hold was not there
// (ErrNotHeld) or is gone (ErrLost). Calling the release again settles it.
func InDoubt(err error) bool {
	return err != nil && !errors.Is(err, lockkit.ErrNotHeld) && !errors.Is(err, lockkit.ErrLost)
}

// Refused reports whether err is an error reply of the server (TRYAGAIN
// while a slot moves, OOM, …): the request did not take effect.
func Refused(err error) bool { return isServerError(err) }
