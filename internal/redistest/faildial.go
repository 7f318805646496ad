package redistest

import (
	"context"
	"errors"
	"net"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// errDialRefused is the cause of the dials a [FailDials] hook fails.
var errDialRefused = errors.New("redistest: connection refused")

// FailDials is a go-redis hook that fails dials, as a client sees a server
// that is restarting: after Arm(n), the next n connections the client
// opens (for commands or for pub/sub) fail with a network error, without
// dialing. Commands on connections open already, and pipelines, pass
// through. Add it to a client with client.AddHook(h).
//
// A FailDials must not be copied after first use. It is safe for
// concurrent use.
type FailDials struct{ left atomic.Int64 }

// Arm makes the next n dials fail.
func (h *FailDials) Arm(n int) { h.left.Store(int64(n)) }

// Left returns how many dials are still to fail.
func (h *FailDials) Left() int { return int(h.left.Load()) }

// DialHook fails the dial while dials are left to fail.
func (h *FailDials) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		for {
			n := h.left.Load()
			if n <= 0 {
				return next(ctx, network, addr)
			}
			if h.left.CompareAndSwap(n, n-1) {
				return nil, &net.OpError{Op: "dial", Net: network, Err: errDialRefused}
			}
		}
	}
}

// ProcessHook passes commands through unchanged.
func (*FailDials) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

// ProcessPipelineHook passes pipelines through unchanged.
func (*FailDials) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
