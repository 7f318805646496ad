package redistest

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// This file and counter.go, heldup.go and silence.go hold the go-redis
// hooks that tests add to a client. Faults of the server itself (stop,
// kill, restart, stall) are methods of [Server].

// The errors the one-shot hooks give the caller of the command they act on.
var (
	// ErrReplyDropped is the error of a command whose reply a [DropReply]
	// hook dropped.
	ErrReplyDropped = errors.New("redistest: reply dropped")
	// ErrNotSent is the error of a command a [RefuseSend] hook refused.
	ErrNotSent = errors.New("redistest: command not sent")
)

// DropReply is a go-redis hook that simulates a reply lost on its way back
// from the server. Once armed, the next single command that matches runs on
// the server as usual, but its caller gets [ErrReplyDropped] (or Err)
// instead of the reply, and the hook disarms itself. A command that fails
// keeps its error and leaves the hook armed; pipelines, and the handshake go-redis sends on
// each new connection (see [Counter]), pass through untouched. Add it to a
// client with client.AddHook(h).
//
// A DropReply must not be copied after first use. It is safe for
// concurrent use.
type DropReply struct {
	// Match, if not nil, selects the commands whose reply may be dropped;
	// nil matches every command.
	Match func(cmd redis.Cmder) bool
	// Err, if not nil, is the error the caller gets instead of
	// ErrReplyDropped: a network error, say, which lockkit takes for a
	// passing fault that a waiting Lock waits out.
	Err error

	oneShot
}

// ProcessHook sends the command and, if the hook is armed and the command
// is not part of a connection handshake, matches and succeeds, disarms the
// hook and replaces the reply with ErrReplyDropped (or Err).
func (h *DropReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && h.takes(h.Match, cmd) {
			lost := h.Err
			if lost == nil {
				lost = ErrReplyDropped
			}
			cmd.SetErr(lost)
			return lost
		}
		return err
	}
}

// oneShot is the arming that the one-shot hooks ([DropReply],
// [ResendScript], [RefuseSend]) share: Arm arms it, and the hook acts on
// the first command it selects (that succeeds, but for RefuseSend, which
// sends none), and disarms itself (fire). Dials and
// pipelines pass through.
type oneShot struct{ armed atomic.Bool }

// Arm makes the hook act on the next command it selects that succeeds.
func (h *oneShot) Arm() { h.armed.Store(true) }

// Armed reports whether the hook is armed: it has not acted since Arm.
func (h *oneShot) Armed() bool { return h.armed.Load() }

// fire disarms the hook and reports whether it was armed: whether it acts.
func (h *oneShot) fire() bool { return h.armed.CompareAndSwap(true, false) }

// takes reports whether the hook acts on cmd, disarming it if so: it is
// armed, and cmd is no handshake and is selected by match (nil selects
// every command).
func (h *oneShot) takes(match func(redis.Cmder) bool, cmd redis.Cmder) bool {
	return !isHandshake(cmd) && (match == nil || match(cmd)) && h.fire()
}

// DialHook passes dials through unchanged.
func (*oneShot) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessPipelineHook passes pipelines through unchanged.
func (*oneShot) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// ResendScript is a go-redis hook that, once armed, sends the next script
// twice, as go-redis does when a read times out and it retries: the caller
// gets the second reply, and the hook disarms itself. A script that fails
// is not sent again and leaves the hook armed. Add it to a client with
// client.AddHook(h).
//
// A ResendScript must not be copied after first use. It is safe for
// concurrent use.
type ResendScript struct{ oneShot }

// ProcessHook sends the command and, if it is a script that succeeded and
// the hook is armed, disarms the hook and sends it again.
func (h *ResendScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && IsScript(cmd) && h.fire() {
			err = next(ctx, cmd)
		}
		return err
	}
}

// RefuseSend is a go-redis hook that simulates a connection that broke
// before a request left: once armed, the next single command that matches
// is not sent at all, its caller gets [ErrNotSent], and the hook disarms
// itself. Pipelines and the handshake pass through. Add it to a client
// with client.AddHook(h).
//
// A RefuseSend must not be copied after first use. It is safe for
// concurrent use.
type RefuseSend struct {
	// Match, if not nil, selects the commands that may be refused; nil
	// matches every command.
	Match func(cmd redis.Cmder) bool

	oneShot
}

// ProcessHook fails the command without sending it if the hook is armed
// and the command is selected, disarming the hook; it sends it otherwise.
func (h *RefuseSend) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.takes(h.Match, cmd) {
			cmd.SetErr(ErrNotSent)
			return ErrNotSent
		}
		return next(ctx, cmd)
	}
}
