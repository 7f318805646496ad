package redistest

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strings"
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
	// Late holds up the replies instead of the commands: a matching
	// command runs on the server at once, and its caller gets the reply
	// only once the hook is turned off (or after Max), as when a reply is
	// slow to come back.
	Late bool

	gate gate         // shut by On, opened by Off
	held atomic.Int64 // commands held up now
}

// Held returns how many commands (or, with Late, replies) are held up now.
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
		if held == nil || isHandshake(cmd) || h.Match != nil && !h.Match(cmd) {
			return next(ctx, cmd)
		}
		if h.Late {
			err := next(ctx, cmd)
			h.hold(held)
			return err
		}
		h.hold(held)
		return next(ctx, cmd)
	}
}

// hold waits until held is closed or for at most Max.
func (h *Silence) hold(held <-chan struct{}) {
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

// ProcessPipelineHook implements redis.Hook.
func (h *Silence) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// IsScript reports whether cmd runs a script (EVALSHA or EVAL): a Match
// for the requests of every lock kind.
func IsScript(cmd redis.Cmder) bool {
	n := cmd.Name()
	return n == "evalsha" || n == "eval"
}

// RunsScript reports whether cmd runs s, by EVALSHA or by the EVAL
// go-redis falls back to: a Match for the requests of one script.
func RunsScript(cmd redis.Cmder, s *redis.Script) bool {
	args := cmd.Args()
	if len(args) < 2 {
		return false
	}
	arg, _ := args[1].(string)
	switch strings.ToLower(cmd.Name()) {
	case "evalsha", "evalsha_ro":
		return arg == s.Hash()
	case "eval", "eval_ro":
		sum := sha1.Sum([]byte(arg))
		return hex.EncodeToString(sum[:]) == s.Hash()
	}
	return false
}
