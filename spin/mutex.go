package spin

import (
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/reentrant"
)

// Mutex is a [reentrant.Mutex] that waits by backoff: same holds, counts,
// tokens, watchdog and release contract, but a waiting Lock sleeps a
// randomised, growing time between attempts (see [WithBackoff]) instead of
// subscribing to releases. Its releases publish nothing.
type Mutex = reentrant.Mutex

// Defaults of [WithBackoff].
const (
	// DefaultBackoffFloor bounds the first sleep.
	DefaultBackoffFloor = config.DefaultBackoffFloor
	// DefaultBackoffCap bounds every sleep.
	DefaultBackoffCap = config.DefaultBackoffCap
)

// New returns the spin lock name of client c for a new owner. It does no
// I/O and cannot fail: invalid arguments make every method return an error
// matching [lockkit.ErrInvalid]. A spin lock and a reentrant lock cannot
// share a name: the second finds the name used by another kind
// ([lockkit.ErrWrongKind]).
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *Mutex {
	return reentrant.New(c, name, append([]lockkit.Option{spinKind}, opts...)...)
}

// spinKind turns the reentrant lock being made into a spin lock.
func spinKind(o *config.Options) { o.Kind = config.Spin }

// WithBackoff sets how a waiting Lock spaces its attempts. After the n-th
// failed attempt (n = 0, 1, …) it sleeps for a random duration in
// [0, min(cap, floor·2ⁿ)) ("full jitter"), and never past the end of the
// holder's lease. A small floor finds a quickly released lock sooner; a
// larger cap sends fewer commands while a lock is held for long. The floor
// must be positive and at most cap. It applies to spin locks (and as a
// Client default). Default: floor 1 ms ([DefaultBackoffFloor]), cap 128 ms
// ([DefaultBackoffCap]).
func WithBackoff(floor, cap time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithBackoff", true, config.Spin) {
			return
		}
		if floor <= 0 || cap < floor {
			o.Fail("WithBackoff", "need 0 < floor <= cap, got floor %v, cap %v", floor, cap)
			return
		}
		o.BackoffFloor, o.BackoffCap = floor, cap
	}
}
