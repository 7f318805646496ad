package redistest

import (
	"context"
	"math/rand/v2"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// AddLatency makes every command c sends, and every pipeline, take up to
// max longer on each way, a time drawn at random: a request is held
// before it is sent and its reply before it is returned, as over a slow
// network, so that calls are more often on their way when something
// else happens (a Close, say). It starts no goroutine.
func AddLatency(c redis.UniversalClient, max time.Duration) {
	c.AddHook(latencyHook{max})
}

// latencyHook is the hook of AddLatency.
type latencyHook struct{ max time.Duration }

// wait holds the caller for a random time up to h.max.
func (h latencyHook) wait() { time.Sleep(rand.N(h.max + 1)) }

func (latencyHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return next(ctx, network, addr)
	}
}

func (h latencyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.wait()
		err := next(ctx, cmd)
		h.wait()
		return err
	}
}

func (h latencyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.wait()
		err := next(ctx, cmds)
		h.wait()
		return err
	}
}
