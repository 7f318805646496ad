package multilock

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// Defaults of a RedLock's options.
const (
	// DefaultDriftFactor is the share of the lease set aside for clock
	// drift between the client and the nodes (plus 2 ms); see
	// [WithDriftFactor].
	DefaultDriftFactor = config.DefaultDriftFactor
	// MaxNodeTimeout caps the default node timeout; see [WithNodeTimeout].
	MaxNodeTimeout = config.MaxNodeTimeout
)

// WithNodeTimeout bounds every request a RedLock sends to one node (to
// take, renew the fencing counter of, release or undo its part of a hold),
// so that a slow or dead node costs at most d per request. It should be
// small next to the lease, and well above a node's round trip as the
// client sees it under load: a node that never answers within d (a slow
// link, or a small pool whose connections the requests left behind still
// hold) never counts, and with a majority of such nodes no round ever
// takes the lock. d must be positive. It applies to a RedLock
// only, and not as a Client default. Default: a tenth of the lease, at
// most 250 ms ([MaxNodeTimeout]).
//
// The bound holds whatever the go-redis client's options: a request that a
// node does not answer in time is left to finish in the background (within
// the client's own ReadTimeout), and an acquire among them is undone when
// its reply comes. With redis.Options.ContextTimeoutEnabled set, go-redis
// also gives up on the socket at the bound.
func WithNodeTimeout(d time.Duration) lockkit.Option {
	return config.Positive("WithNodeTimeout", "timeout", d, false, []string{config.RedLock},
		func(o *config.Options) { o.NodeTimeout = d })
}

// WithDriftFactor sets the share of the lease that is assumed lost to
// clocks running at different rates on the client and the nodes: a hold
// counts as valid for lease − acquisition time − (lease·f + 2 ms). Raise
// it for hosts whose clocks may be slewed heavily. f must be in [0, 0.5).
// It applies to a RedLock only, and not as a Client default. Default: 0.01
// ([DefaultDriftFactor]).
func WithDriftFactor(f float64) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithDriftFactor", false, config.RedLock) {
			return
		}
		if !(f >= 0 && f < 0.5) {
			o.Fail("WithDriftFactor", "factor must be in [0, 0.5), got %v", f)
			return
		}
		o.DriftFactor = f
	}
}
