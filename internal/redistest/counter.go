package redistest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

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
	// server, set by CountCommands for a client of one server, measures
	// that server's CPU time and commands for the benchmarks.
	server serverCost
}

// NewCounter returns a Counter with every count at zero.
func NewCounter() *Counter { return &Counter{} }

// CountCommands returns a new Counter that counts the commands c sends
// from now on.
func CountCommands(c redis.UniversalClient) *Counter {
	counter := NewCounter()
	c.AddHook(counter.Hook())
	if one, ok := c.(*redis.Client); ok {
		counter.server.c = one
	}
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
