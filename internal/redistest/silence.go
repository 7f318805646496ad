package redistest

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

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

	gate gate         // shut by On, opened by Off
	held atomic.Int64 // commands held up now
}

// Held returns how many commands are held up now.
func (h *Silence) Held() int64 { return h.held.Load() }

// On holds up every matching command from now on.
func (h *Silence) On() {
	h.gate.shut()
}

// Off lets the commands held up run, and the later ones pass.
func (h *Silence) Off() {
	h.gate.open()
}

// DialHook implements redis.Hook.
func (h *Silence) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (h *Silence) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		held := h.gate.held()
		if held != nil && !isHandshake(cmd) && (h.Match == nil || h.Match(cmd)) {
			max := h.Max
			if max <= 0 {
				max = 10 * time.Second
			}
			t := time.NewTimer(max)
			h.held.Add(1)
			select {
			case <-held:
			case <-t.C:
			}
			h.held.Add(-1)
			t.Stop()
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (h *Silence) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
