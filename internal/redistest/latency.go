package redistest

import (
	"context"
	"math/rand/v2"
	"net"
	"testing"
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

// slowNetwork is the latency each way of the slow network of OnNetworks.
const slowNetwork = 3 * time.Millisecond

// OnNetworks runs race twice, in subtests: with a client of each of srvs
// (fast), and with clients whose commands take up to 3 ms longer each way
// (slow_network, see [AddLatency]), so that calls are more often on their
// way when something happens.
func OnNetworks(t *testing.T, race func(t *testing.T, rcs []redis.UniversalClient), srvs ...*Server) {
	t.Helper()
	for _, slow := range []bool{false, true} {
		what := "fast"
		if slow {
			what = "slow_network"
		}
		t.Run(what, func(t *testing.T) {
			rcs := make([]redis.UniversalClient, len(srvs))
			for i, s := range srvs {
				c := s.Client(t)
				if slow {
					AddLatency(c, slowNetwork)
				}
				rcs[i] = c
			}
			race(t, rcs)
		})
	}
}
