package lockkit

import (
	"context"
	"log/slog"

	"github.com/lockkit/lockkit/internal/config"
)

// WithLogger makes the Client log what goes wrong through l: a renewal
// round trip that failed and will be retried, and a broken pub/sub
// connection, at Warn; a lost hold at Error, with the lock's kind, name and
// owner. Nothing is logged when all goes well. It is an option of
// [New] only. Default: silent.
func WithLogger(l *slog.Logger) Option {
	return func(o *config.Options) {
		if !o.ClientOnly("WithLogger") {
			return
		}
		if l == nil {
			o.Fail("WithLogger", "logger must not be nil")
			return
		}
		o.Logger = l
	}
}

// logTrace returns the hooks that log to l.
func logTrace(l *slog.Logger) *Trace {
	ctx := context.Background()
	return &Trace{
		Renewed: func(i RenewInfo) {
			if i.Retry > 0 {
				l.LogAttrs(ctx, slog.LevelWarn, "lockkit: renewal failed; retrying",
					slog.Int("holds", i.Holds), slog.Int("failed", i.Retry), slog.Any("error", i.Err))
			}
		},
		Lost: func(i LostInfo) {
			l.LogAttrs(ctx, slog.LevelError, "lockkit: hold lost",
				slog.String("kind", i.Lock.Kind), slog.String("name", i.Lock.Name),
				slog.String("owner", i.Lock.Owner), slog.Int64("token", i.Token),
				slog.Duration("held", i.Held), slog.Any("error", i.Err))
		},
		Reconnected: func(i ReconnectInfo) {
			l.LogAttrs(ctx, slog.LevelWarn, "lockkit: pub/sub connection broke; reconnecting and verifying every hold",
				slog.Any("error", i.Err))
		},
	}
}
