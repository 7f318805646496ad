package failover_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
)

// retry calls f, each call bounded by callTimeout, until it returns nil,
// and fails the test if that does not happen within settleBound: right
// after a failover, a client may still talk to the old master for a
// moment (the calls then fail with a network or READONLY error, and a
// retried Unlock is safe).
func retry(t *testing.T, what string, f func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(settleBound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		err := f(ctx)
		cancel()
		if err == nil {
			return
		}
		if errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrInvalid) || time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %v; trying again", what, err)
		time.Sleep(50 * time.Millisecond)
	}
}
