package lockkit

import (
	"strings"
	"time"

	"github.com/lockkit/lockkit/internal/config"
)

// Option configures a [Client] or a lock. The options here apply to every
// lock kind; kind packages add their own (fair.WithWaiterTimeout, say),
// which are Options too. Given to [New], an option is the default of every
// lock made from that Client; given to a lock's New, it applies to that
// lock and overrides the Client's. An option that does not apply where it
// is given, or a bad value, makes the lock's methods return an error
// matching [ErrInvalid] that names the option. A nil Option is invalid too.
type Option func(*config.Options)

// Defaults of the options every kind shares.
const (
	// DefaultPrefix starts every Redis key of a lock; see [WithPrefix].
	DefaultPrefix = config.DefaultPrefix
	// DefaultWatchdogTimeout is the lease the watchdog keeps renewing; see
	// [WithWatchdogTimeout].
	DefaultWatchdogTimeout = config.DefaultWatchdogTimeout
	// MinLease is the shortest lease or watchdog timeout accepted.
	MinLease = config.MinLease
	// MaxLease is the longest lease or watchdog timeout accepted.
	MaxLease = config.MaxLease
)

// WithLease gives every hold a fixed lease d: the watchdog does not renew
// it and the hold ends by itself d after it was taken, even if it is never
// released. Its lost signal closes just before, by the watchdog's margin
// ([github.com/lockkit/lockkit/watchdog.Margin]: d/20, at most 100 ms),
// so that the holder is told before another owner can take the lock. The
// watchdog still verifies the hold every d/3, changing nothing, so that a
// hold the server lost (a restart, a failover) is reported lost then, as
// a renewed one is at its next renewal. Use it when a holder must never
// keep the lock longer than d. d must be between [MinLease] and
// [MaxLease]. Default: no fixed lease; the watchdog keeps each hold until
// it is released.
func WithLease(d time.Duration) Option {
	return leaseOption("WithLease", d, func(o *config.Options) { o.Lease = d })
}

// WithWatchdogTimeout sets the lease the watchdog keeps renewing, every
// d/3, while a lock is held. A crashed holder frees the lock within d; a
// holder that cannot reach Redis learns it lost the lock before d runs
// out. d must be between [MinLease] and [MaxLease]. Default: 30 s
// ([DefaultWatchdogTimeout]).
func WithWatchdogTimeout(d time.Duration) Option {
	return leaseOption("WithWatchdogTimeout", d, func(o *config.Options) { o.WatchdogTimeout = d })
}

// WithMaxHold bounds how long the watchdog keeps a hold: it renews the
// lease no more once d has passed since the lock was taken, so a holder
// that is stuck (a deadlock, a goroutine that never returns) cannot keep
// the lock for ever. The lock then frees itself at most one watchdog
// timeout after d, and the hold's lost signal closes first, with an error
// matching [ErrLost] and watchdog.ErrMaxHold. Unlock ends a hold as
// usual. It has no effect with [WithLease], whose lease is never renewed.
// d must be between [MinLease] and [MaxLease]. Default: no bound.
func WithMaxHold(d time.Duration) Option {
	return leaseOption("WithMaxHold", d, func(o *config.Options) { o.MaxHold = d })
}

// leaseOption returns the option called name that sets a lease-like
// duration d with set, for every kind that holds leases (and as a Client
// default), once d is checked to lie in [MinLease, MaxLease].
func leaseOption(name string, d time.Duration, set func(*config.Options)) Option {
	return func(o *config.Options) {
		if !o.For(name, true, config.Reentrant, config.Fair, config.Spin, config.RW, config.RedLock, config.Election, config.Semaphore) {
			return
		}
		if d < MinLease || d > MaxLease {
			o.Fail(name, "must be between %v and %v, got %v", MinLease, MaxLease, d)
			return
		}
		set(o)
	}
}

// WithOwner sets the owner id instead of a fresh one unique to the lock
// value, for ownership that spans values or processes (a job id, say).
// Lock values with the same name and owner id are one owner: they re-enter
// each other's holds, and any of them may release them. A release by one
// value that ends the hold (its last count) ends it for the others too:
// the watchdog's next renewal of another value's hold finds it gone and
// reports it lost (Lost closes, with [ErrLost]); an Unlock of that value
// before then returns nil, up to 10 s after the release, since its owner
// released it. The id must not be empty, start with ':' (reserved) or
// exceed 512 bytes. It is not a Client default. Default: a fresh id per
// lock value.
func WithOwner(id string) Option {
	return func(o *config.Options) {
		if !o.For("WithOwner", false, config.Reentrant, config.Fair, config.Spin, config.RW, config.RedLock) {
			return
		}
		switch {
		case id == "":
			o.Fail("WithOwner", "owner id must not be empty")
		case strings.HasPrefix(id, ":"):
			o.Fail("WithOwner", "owner id %q must not start with ':' (reserved)", id)
		case len(id) > config.MaxOwnerLen:
			o.Fail("WithOwner", "owner id is %d bytes, more than %d", len(id), config.MaxOwnerLen)
		default:
			o.Owner = id
		}
	}
}

// WithPrefix sets the prefix of a lock's Redis keys, so that applications
// sharing a Redis keep apart. It must not be empty, contain '{' or '}', or
// exceed 512 bytes. Default: "lockkit" ([DefaultPrefix]).
func WithPrefix(prefix string) Option {
	return func(o *config.Options) {
		if !o.For("WithPrefix", true, config.Reentrant, config.Fair, config.Spin, config.RW, config.RedLock, config.Latch, config.Election, config.Semaphore) {
			return
		}
		if prefix == "" || strings.ContainsAny(prefix, "{}") || len(prefix) > config.MaxPrefixLen {
			o.Fail("WithPrefix", "prefix %q must be non-empty, at most %d bytes and free of '{' and '}'", prefix, config.MaxPrefixLen)
			return
		}
		o.Prefix = prefix
	}
}

// WithTrace sets hooks that report what locks do (see [Trace]). Given to
// [New], they apply to every lock of the Client, beside those added with
// [Client.AddTrace]; given to a lock, to that lock, beside the Client's.
// Like every option, the last WithTrace given counts: put every hook of a
// lock in one Trace, and add more to a Client with Client.AddTrace. A nil
// t sets none (and leaves one given before).
func WithTrace(t *Trace) Option {
	return func(o *config.Options) {
		if !o.For("WithTrace", true, config.Reentrant, config.Fair, config.Spin, config.RW, config.RedLock, config.Election, config.Semaphore) {
			return
		}
		if t != nil {
			o.Trace = t
		}
	}
}

// WithHolderInfo stores, beside each fresh hold, who holds it: the host
// name, the process id and when the hold began, as a JSON object in the
// hash field ':m:' + the hold's id, which `lockkit show` prints. It costs
// one more round trip per fresh hold (not per re-entry), sent after the
// acquire; a failure to store it does not fail the Lock. Default: off.
func WithHolderInfo() Option {
	return func(o *config.Options) {
		if !o.For("WithHolderInfo", true, config.Reentrant, config.Fair, config.Spin, config.RW, config.RedLock, config.Election) {
			return
		}
		o.HolderInfo = true
	}
}
