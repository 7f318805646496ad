package fair

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// DefaultWaiterTimeout is how long a waiter's place in the queue outlives
// its last sign of life unless [WithWaiterTimeout] says otherwise.
const DefaultWaiterTimeout = config.DefaultWaiterTimeout

// minWaiterTimeout keeps the heartbeat, every third of the waiter timeout,
// at one millisecond or more.
const minWaiterTimeout = 3 * time.Millisecond

// WithWaiterTimeout sets how long a waiter's place in the queue survives
// without a sign of life. A waiting Lock renews its place every d/3, so
// only a waiter whose process died (or stalled for longer than d) loses
// it; the waiters behind a dead one move up at most d after it died. A
// shorter d hands the lock on sooner after a crash; a longer one tolerates
// longer pauses (GC, network trouble) without dropping live waiters to the
// back. It must be at least 3 ms. It applies to fair locks (and as a
// Client default). Default: 5 s ([DefaultWaiterTimeout]).
func WithWaiterTimeout(d time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithWaiterTimeout", true, config.Fair) {
			return
		}
		if d < minWaiterTimeout {
			o.Fail("WithWaiterTimeout", "timeout must be at least %v, got %v", minWaiterTimeout, d)
			return
		}
		o.WaiterTimeout = d
	}
}
