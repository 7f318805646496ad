package fair_test

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// scriptReplies is a go-redis hook that counts the scripts a client sent
// whose reply came (a result, or an error reply from Redis), and those
// whose reply did not (a network error).
type scriptReplies struct{ answered, failed atomic.Int64 }

// DialHook implements redis.Hook.
func (h *scriptReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (h *scriptReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if !redistest.IsScript(cmd) {
			return err
		}
		var rerr redis.Error
		if err == nil || errors.As(err, &rerr) {
			h.answered.Add(1)
		} else {
			h.failed.Add(1)
		}
		return err
	}
}

// ProcessPipelineHook implements redis.Hook.
func (h *scriptReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
