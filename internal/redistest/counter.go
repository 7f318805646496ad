package redistest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// scriptCommands are the commands that run server-side scripts or
// functions, counted together by Counter.Scripts.
var scriptCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}

// evalCommands are the commands counted together under "eval".
var evalCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro"}

// Counter counts the commands a go-redis client sends, by lower-case
// command name (the first word, so CLIENT SETINFO counts as "client"),
// including every command of a pipeline and the MULTI and EXEC that wrap a
// transaction. Add it to a client with client.AddHook(counter.Hook()); one
// Counter may be shared by several clients. A command that go-redis retries
// internally counts once.
//
// The handshake go-redis performs on every new connection (HELLO,
// CLIENT SETINFO and CLIENT MAINT_NOTIFICATIONS) also passes through the
// hooks; it is not counted, so counts do not depend on when the client's
// pools happen to open connections.
//
// Counter is safe for concurrent use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int64
	total  int64
}

// NewCounter returns a Counter with every count at zero.
func NewCounter() *Counter {
	return &Counter{counts: map[string]int64{}}
}

// CountCommands returns a new Counter that counts the commands c sends
// from now on.
func CountCommands(c redis.UniversalClient) *Counter {
	counter := NewCounter()
	c.AddHook(counter.Hook())
	return counter
}

// Hook returns the go-redis hook that feeds the counter.
func (c *Counter) Hook() redis.Hook { return counterHook{c} }

// Count returns how many commands named name (case-insensitive) were sent.
// Count("eval") counts every script evaluation, whichever of EVAL,
// EVALSHA, EVAL_RO and EVALSHA_RO was used; the other names, "evalsha"
// included, count just that command.
func (c *Counter) Count(name string) int64 {
	name = strings.ToLower(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if name == "eval" {
		return c.sum(evalCommands)
	}
	return c.counts[name]
}

// Scripts returns how many script or function calls were sent: EVAL,
// EVALSHA, FCALL and their read-only variants.
func (c *Counter) Scripts() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sum(scriptCommands)
}

// Total returns how many commands were sent.
func (c *Counter) Total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Reset sets every count back to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.counts)
	c.total = 0
}

// sum adds up the counts of names; the caller holds c.mu.
func (c *Counter) sum(names []string) int64 {
	var n int64
	for _, name := range names {
		n += c.counts[name]
	}
	return n
}

// add counts cmds.
func (c *Counter) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cmd := range cmds {
		if isHandshake(cmd) {
			continue
		}
		c.counts[strings.ToLower(cmd.Name())]++
		c.total++
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
