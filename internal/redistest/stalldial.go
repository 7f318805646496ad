package redistest

import (
	"context"
	"net"

	"github.com/redis/go-redis/v9"
)

// StallDials is a go-redis hook that holds up new connections, as a client
// sees a server that accepts nothing for a while (its listen queue full,
// a network that drops the handshake): after On, every dial the client
// makes (for commands or for pub/sub) waits until Off, or until the dial's
// ctx ends (go-redis's DialTimeout, 5 s by default), and then goes on.
// Commands on connections open already pass through. Add it to a client
// with client.AddHook(h).
//
// The zero StallDials is off. It must not be copied after first use, and
// is safe for concurrent use.
type StallDials struct {
	g gate
}

// On holds up the dials from now on.
func (h *StallDials) On() { h.g.shut() }

// Off lets the dials held up, and those to come, go on.
func (h *StallDials) Off() { h.g.open() }

// DialHook holds the dial up while h is on.
func (h *StallDials) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if stalled := h.g.held(); stalled != nil {
			select {
			case <-stalled:
			case <-ctx.Done():
				return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
			}
		}
		return next(ctx, network, addr)
	}
}

// ProcessHook passes commands through unchanged.
func (*StallDials) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

// ProcessPipelineHook passes pipelines through unchanged.
func (*StallDials) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
