package redistest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file holds the go-redis hooks that tests add to a client: one that
// loses a reply, one that counts commands. Faults of the server itself
// (stop, kill, restart, stall) are methods of [Server].

// ErrReplyDropped is the error a [DropReply] hook gives the caller of the
// command whose reply it dropped.
var ErrReplyDropped = errors.New("redistest: reply dropped")

// DropReply is a go-redis hook that simulates a reply lost on its way back
// from the server. Once armed, the next single command that matches runs on
// the server as usual, but its caller gets [ErrReplyDropped] instead of the
// reply, and the hook disarms itself. A command that fails keeps its error
// and leaves the hook armed; pipelines, and the handshake go-redis sends on
// each new connection (see [Counter]), pass through untouched. Add it to a
// client with client.AddHook(h).
//
// A DropReply must not be copied after first use. It is safe for
// concurrent use.
type DropReply struct {
	// Match, if not nil, selects the commands whose reply may be dropped;
	// nil matches every command.
	Match func(cmd redis.Cmder) bool

	armed atomic.Bool
}

// Arm makes the hook drop the reply of the next matching command.
func (h *DropReply) Arm() { h.armed.Store(true) }

// Armed reports whether the hook is armed: no matching command has
// succeeded since [DropReply.Arm].
func (h *DropReply) Armed() bool { return h.armed.Load() }

// DialHook passes dials through unchanged.
func (h *DropReply) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook sends the command and, if the hook is armed and the command
// is not part of a connection handshake, matches and succeeds, disarms the
// hook and replaces the reply with ErrReplyDropped.
func (h *DropReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && !isHandshake(cmd) && (h.Match == nil || h.Match(cmd)) && h.armed.CompareAndSwap(true, false) {
			cmd.SetErr(ErrReplyDropped)
			return ErrReplyDropped
		}
		return err
	}
}

// ProcessPipelineHook passes pipelines through unchanged.
func (h *DropReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// Counter counts the commands go-redis clients send: every command of a
// pipeline, and the MULTI and EXEC that wrap a transaction, count one each;
// a command that go-redis retries internally counts once. Add it to a
// client with client.AddHook(counter.Hook()), or use [CountCommands]; one
// Counter may be shared by several clients.
//
// The handshake go-redis performs on every new connection (HELLO,
// CLIENT SETINFO and CLIENT MAINT_NOTIFICATIONS) also passes through the
// hooks; it is not counted, so counts do not depend on when the client's
// pools happen to open connections.
//
// The zero Counter is ready to use. A Counter must not be copied after
// first use. It is safe for concurrent use.
type Counter struct {
	total, scripts atomic.Int64
}

// NewCounter returns a Counter with every count at zero.
func NewCounter() *Counter { return &Counter{} }

// CountCommands returns a new Counter that counts the commands c sends
// from now on.
func CountCommands(c redis.UniversalClient) *Counter {
	counter := NewCounter()
	c.AddHook(counter.Hook())
	return counter
}

// Hook returns the go-redis hook that feeds the counter.
func (c *Counter) Hook() redis.Hook { return counterHook{c} }

// Scripts returns how many script or function calls were sent: EVAL,
// EVALSHA, FCALL and their read-only variants.
func (c *Counter) Scripts() int64 { return c.scripts.Load() }

// Total returns how many commands were sent.
func (c *Counter) Total() int64 { return c.total.Load() }

// Reset sets every count back to zero.
func (c *Counter) Reset() {
	c.total.Store(0)
	c.scripts.Store(0)
}

// add counts cmds.
func (c *Counter) add(cmds ...redis.Cmder) {
	for _, cmd := range cmds {
		if isHandshake(cmd) {
			continue
		}
		c.total.Add(1)
		switch strings.ToLower(cmd.Name()) {
		case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
			c.scripts.Add(1)
		}
	}
}

// isHandshake reports whether cmd is one of the commands go-redis sends
// while initialising a new connection.
func isHandshake(cmd redis.Cmder) bool {
	switch strings.ToLower(cmd.Name()) {
	case "hello":
		return true
	case "client":
		if args := cmd.Args(); len(args) > 1 {
			switch strings.ToLower(fmt.Sprint(args[1])) {
			case "setinfo", "maint_notifications":
				return true
			}
		}
	}
	return false
}

// counterHook is the redis.Hook view of a Counter.
type counterHook struct{ c *Counter }

// DialHook passes dials through unchanged.
func (h counterHook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook counts a single command before it is sent.
func (h counterHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.c.add(cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts every command of a pipeline or transaction
// before it is sent.
func (h counterHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.c.add(cmds...)
		return next(ctx, cmds)
	}
}

// Silence is a go-redis hook that makes the server seem to stop answering,
// as a go-redis client without ContextTimeoutEnabled sees a stalled server:
// while the hook is on, each matching command waits, whatever its ctx says,
// until the hook is turned off (or for at most Max), and then runs on the
// server as usual, so that its reply comes late. Pipelines and the
// handshake pass through. Add it to a client with client.AddHook(h).
//
// A Silence must not be copied after first use. It is safe for concurrent
// use.
type Silence struct {
	// Match, if not nil, selects the commands held up; nil matches every
	// command.
	Match func(cmd redis.Cmder) bool
	// Max bounds how long a command is held up; zero means 10 s.
	Max time.Duration

	mu   sync.Mutex
	gate chan struct{} // closed by Off; nil while the hook is off
}

// On holds up every matching command from now on.
func (h *Silence) On() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gate == nil {
		h.gate = make(chan struct{})
	}
}

// Off lets the commands held up run, and the later ones pass.
func (h *Silence) Off() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gate != nil {
		close(h.gate)
		h.gate = nil
	}
}

// DialHook implements redis.Hook.
func (h *Silence) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (h *Silence) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		gate := h.gate
		h.mu.Unlock()
		if gate != nil && !isHandshake(cmd) && (h.Match == nil || h.Match(cmd)) {
			max := h.Max
			if max <= 0 {
				max = 10 * time.Second
			}
			t := time.NewTimer(max)
			select {
			case <-gate:
			case <-t.C:
			}
			t.Stop()
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (h *Silence) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
