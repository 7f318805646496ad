package redistest

import (
	"context"
	"testing"
	"time"
)

// Ctx returns a context that ends after d, or at the latest when t's
// cleanups run. It is cancelled by a cleanup of its own rather than derived
// from t.Context, so cleanups registered after the call can still use it.
func Ctx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
