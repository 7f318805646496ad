package spin

import (
	"math"
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
		o.BackoffMultiplier, o.BackoffExact = 0, false
	}
}

// WithExponentialBackoff makes a waiting Lock sleep exactly
// min(cap, floor·multiplierⁿ) after its n-th failed attempt (n = 0, 1, …),
// without jitter, and never past the end of the holder's lease. Without
// jitter, waiters that started together keep attempting together: prefer
// [WithBackoff] when many contend. floor must be positive and at most cap,
// and multiplier finite and at least 1. It applies to spin locks (and as a
// Client default).
func WithExponentialBackoff(floor, cap time.Duration, multiplier float64) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithExponentialBackoff", true, config.Spin) {
			return
		}
		if floor <= 0 || cap < floor || !(multiplier >= 1) || math.IsInf(multiplier, 1) {
			o.Fail("WithExponentialBackoff", "need 0 < floor <= cap and a finite multiplier >= 1, got floor %v, cap %v, multiplier %v", floor, cap, multiplier)
			return
		}
		o.BackoffFloor, o.BackoffCap = floor, cap
		o.BackoffMultiplier, o.BackoffExact = multiplier, true
	}
}

// WithConstantBackoff makes a waiting Lock sleep exactly d between
// attempts, and never past the end of the holder's lease. d must be
// positive. It applies to spin locks (and as a Client default).
func WithConstantBackoff(d time.Duration) lockkit.Option {
	return config.Positive("WithConstantBackoff", "sleep", d, true, []string{config.Spin}, func(o *config.Options) {
		o.BackoffFloor, o.BackoffCap = d, d
		o.BackoffMultiplier, o.BackoffExact = 1, true
	})
}
