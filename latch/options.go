package latch

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// DefaultExpiry is how long a latch lives after its last count-down unless
// [WithExpiry] says otherwise.
const DefaultExpiry = config.DefaultExpiry

// MaxCount is the largest count a latch accepts: every count-down is
// remembered in the latch's hash until it opens (so that a re-sent one
// counts once), and this bounds the hash.
const MaxCount = 1 << 20

// WithExpiry sets how long a latch lives in Redis after its last
// count-down, so that a latch whose counters died or forgot it does not
// stay there for ever. The expiry starts again with every count-down.
// When it runs out the latch is forgotten: a count not yet at zero is
// lost (the name starts afresh with its count, and waiters keep waiting),
// and an open latch no longer opens later waiters at once. Choose d longer
// than the longest gap between count-downs plus the time late waiters
// may still come. Waiting does not extend it. d must be between
// [lockkit.MinLease] and [lockkit.MaxLease]. It applies to latches (and
// as a Client default). Default: 24 h ([DefaultExpiry]).
func WithExpiry(d time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithExpiry", true, config.Latch) {
			return
		}
		if d < lockkit.MinLease || d > lockkit.MaxLease {
			o.Fail("WithExpiry", "must be between %v and %v, got %v", lockkit.MinLease, lockkit.MaxLease, d)
			return
		}
		o.Expiry = d
	}
}
