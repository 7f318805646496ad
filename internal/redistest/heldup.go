package redistest

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"
)

// ErrHeldUp is the error of a command a [HoldUp] hook held up.
var ErrHeldUp = errors.New("redistest: request held up in the network")

// HoldUp is a go-redis hook that simulates a request held up in the
// network on a connection its client gave up on, and delivered later (a
// cut that heals, a stalled proxy that resumes): once armed, the next
// single command that matches is not sent, its caller gets [ErrHeldUp] at
// once, as after a read timeout, and the hook disarms itself; [HoldUp.Deliver]
// then runs the command on the server. Pipelines and the handshake pass
// through. Add it to a client with client.AddHook(h).
//
// A HoldUp must not be copied after first use. It is safe for concurrent
// use.
type HoldUp struct {
	// Match, if not nil, selects the commands that may be held up; nil
	// matches every command.
	Match func(cmd redis.Cmder) bool

	oneShot
	mu   sync.Mutex
	args []any             // the command held up, nil for none
	next redis.ProcessHook // where it goes once delivered
}

// ProcessHook holds the command up, if the hook is armed and the command
// is selected, disarming the hook; it sends it otherwise.
func (h *HoldUp) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !h.takes(h.Match, cmd) {
			return next(ctx, cmd)
		}
		h.mu.Lock()
		h.args, h.next = append([]any(nil), cmd.Args()...), next
		h.mu.Unlock()
		cmd.SetErr(ErrHeldUp)
		return ErrHeldUp
	}
}

// Deliver runs the command held up on the server now, within ctx, and
// returns its error; the command is delivered once. It fails when no
// command was held up.
func (h *HoldUp) Deliver(ctx context.Context) error {
	h.mu.Lock()
	args, next := h.args, h.next
	h.args = nil
	h.mu.Unlock()
	if args == nil {
		return errors.New("redistest: no command held up")
	}
	return next(ctx, redis.NewCmd(ctx, args...))
}
