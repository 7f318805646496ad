package rwlock

import (
	"time"

	"github.com/lockkit/lockkit/internal"
)

// options are an RWMutex's settings: the shared ones and writer preference.
type options struct {
	internal.Options
	preferWriters bool
}

func defaultOptions() options {
	return options{Options: internal.DefaultOptions(), preferWriters: true}
}

// Option configures an [RWMutex].
type Option func(*options)

// WithLease gives every hold, read or write, a fixed lease d: the watchdog
// does not renew it and the hold ends by itself d after it was taken, even
// if it is never unlocked. Use it when a holder must never keep the lock
// longer than d. Default: no fixed lease; the watchdog keeps each hold
// until it is unlocked.
func WithLease(d time.Duration) Option {
	return func(o *options) { o.SetLease(d) }
}

// WithWatchdogTimeout sets the lease the watchdog keeps renewing, every
// d/3, for each hold. A crashed holder's hold ends within d. It is also how
// long the intent of a waiting writer lasts unless the writer refreshes it
// (every d/3 while it waits), so a crashed waiting writer stops holding
// back readers within d. Default: 30 s.
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *options) { o.SetWatchdogTimeout(d) }
}

// WithOwner sets the owner id instead of a fresh one unique to this value,
// for ownership that spans values or processes (a job id, say). RWMutexes
// with the same name and owner id re-enter each other's holds. The id must
// not be empty or start with ':'.
func WithOwner(id string) Option {
	return func(o *options) { o.SetOwner(id) }
}

// WithPrefix sets the prefix of the lock's Redis keys. Default: "lockkit".
func WithPrefix(prefix string) Option {
	return func(o *options) { o.SetPrefix(prefix) }
}

// WithWriterPreference sets whether a waiting writer holds back new
// readers. When on, once a writer waits in Lock no owner that does not
// already hold the read lock gets it until that writer has had the write
// lock (or gave up, or died and its intent lapsed), so a steady stream of
// overlapping readers cannot starve writers. When off, readers are let in
// whenever no writer holds the lock, which gives readers the most
// throughput but lets a writer wait as long as readers keep overlapping.
// Default: on.
func WithWriterPreference(on bool) Option {
	return func(o *options) { o.preferWriters = on }
}
