package multilock

import (
	"time"

	"github.com/lockkit/lockkit/internal"
)

// Option configures a [MultiLock].
type Option func(*options)

type options struct {
	lockWait time.Duration // 0: wait for each lock until ctx ends
	errs     []error
}

// WithLockWait bounds how long Lock waits for any one lock. When the bound
// runs out, Lock releases the locks it took in this round and starts over
// (after a short random sleep), until its ctx ends. Use it so that a
// MultiLock stuck behind one busy lock does not keep the others it already
// holds from their other users for long. Without it, Lock waits for each
// lock in turn for as long as ctx allows; the fixed order already rules out
// deadlock. d must be positive. Default: no bound.
func WithLockWait(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.errs = append(o.errs, internal.Invalid("WithLockWait: wait must be positive, got %v", d))
			return
		}
		o.lockWait = d
	}
}

// RedLockOption configures a [RedLock].
type RedLockOption func(*redOptions)

// Defaults of a RedLock.
const (
	// DefaultDriftFactor is the share of the lease set aside for clock drift
	// between the client and the nodes (plus 2 ms); see [WithDriftFactor].
	DefaultDriftFactor = 0.01
	// MaxNodeTimeout caps the default node timeout; see [WithNodeTimeout].
	MaxNodeTimeout = 50 * time.Millisecond
)

type redOptions struct {
	internal.Options
	nodeTimeout time.Duration // 0: min(TTL/10, MaxNodeTimeout)
	driftFactor float64
}

func defaultRedOptions() redOptions {
	return redOptions{Options: internal.DefaultOptions(), driftFactor: DefaultDriftFactor}
}

// nodeTimeoutOrDefault returns the node timeout in effect.
func (o *redOptions) nodeTimeoutOrDefault() time.Duration {
	if o.nodeTimeout > 0 {
		return o.nodeTimeout
	}
	return min(o.TTL()/10, MaxNodeTimeout)
}

// drift returns the clock drift allowance: TTL·factor + 2 ms.
func (o *redOptions) drift() time.Duration {
	return time.Duration(float64(o.TTL())*o.driftFactor) + 2*time.Millisecond
}

// WithLease gives every hold a fixed lease d: nodes do not renew it, and
// the RedLock counts as held for d minus the time the acquisition took and
// the drift allowance (its validity), after which its lost signal closes.
// Default: no fixed lease; each node's watchdog keeps the hold alive.
func WithLease(d time.Duration) RedLockOption {
	return func(o *redOptions) { o.SetLease(d) }
}

// WithWatchdogTimeout sets the lease each node's watchdog keeps renewing,
// every d/3. A crashed holder frees the lock within d. Default: 30 s.
func WithWatchdogTimeout(d time.Duration) RedLockOption {
	return func(o *redOptions) { o.SetWatchdogTimeout(d) }
}

// WithOwner sets the owner id instead of a fresh one unique to this value,
// for ownership that spans processes (a job id, say). A RedLock that locks
// with the owner id of an existing hold takes that hold over: its previous
// holder finds it lost. The id must not be empty or start with ':'.
func WithOwner(id string) RedLockOption {
	return func(o *redOptions) { o.SetOwner(id) }
}

// WithPrefix sets the prefix of the lock's keys on every node.
// Default: "lockkit".
func WithPrefix(prefix string) RedLockOption {
	return func(o *redOptions) { o.SetPrefix(prefix) }
}

// WithNodeTimeout bounds each request to one node while locking, so that a
// slow or dead node costs at most d per attempt. It should be small next to
// the lease. d must be positive.
// Default: a tenth of the lease, at most 50 ms ([MaxNodeTimeout]).
func WithNodeTimeout(d time.Duration) RedLockOption {
	return func(o *redOptions) {
		if d <= 0 {
			o.AddError(internal.Invalid("WithNodeTimeout: timeout must be positive, got %v", d))
			return
		}
		o.nodeTimeout = d
	}
}

// WithDriftFactor sets the share of the lease that is assumed lost to
// clocks running at different rates on the client and the nodes: a hold
// counts as valid for lease − acquisition time − (lease·f + 2 ms). Raise it
// for hosts whose clocks may be stepped or slewed heavily. f must be in
// [0, 0.5). Default: 0.01 ([DefaultDriftFactor]).
func WithDriftFactor(f float64) RedLockOption {
	return func(o *redOptions) {
		if !(f >= 0 && f < 0.5) {
			o.AddError(internal.Invalid("WithDriftFactor: factor must be in [0, 0.5), got %v", f))
			return
		}
		o.driftFactor = f
	}
}

// Bounds of the randomised sleep between two rounds of a Lock that failed.
const (
	retryFloor = time.Millisecond
	retryCap   = 128 * time.Millisecond
)
