package rwlock

import (
	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
)

// WithWriterPreference sets whether a waiting writer holds back new
// readers. When on, once a writer waits in Lock no owner that does not
// already hold the read lock gets it until that writer has had the write
// lock (or gave up, or died and its intent lapsed), but for a moment
// after a downgrade (see the package doc, Writer preference), so a steady
// stream of overlapping readers cannot starve writers. When off, readers
// are let in whenever no writer holds the lock, which gives readers the most
// throughput but lets a writer wait as long as readers keep overlapping;
// once the last reader leaves, though, the free lock is handed off to the
// waiting writers (see the package doc, Waiting).
// It takes both sides: a writer with it registers an intent while it
// waits, and a reader with it stays out while an intent is live, so give
// every owner of a lock the same setting. It applies to read-write locks
// (and as a Client default). Default: on.
func WithWriterPreference(on bool) lockkit.Option {
	return func(o *config.Options) {
		if o.For("WithWriterPreference", true, config.RW) {
			o.PreferWriters = on
		}
	}
}
