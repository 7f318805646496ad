package reentrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// backend is a Redis the behaviour tests run against.
type backend struct {
	name   string
	client func(t *testing.T) redis.UniversalClient
}

// backends returns miniredis, a real standalone server and a real 3-master
// cluster. The real ones skip (or fail in CI) without redis-server.
func backends() []backend {
	return []backend{
		{"miniredis", func(t *testing.T) redis.UniversalClient {
			_, c := redistest.Mini(t)
			return c
		}},
		{"standalone", func(t *testing.T) redis.UniversalClient {
			return redistest.StartServer(t).Client(t)
		}},
		{"cluster", func(t *testing.T) redis.UniversalClient {
			return redistest.StartCluster(t).Client(t)
		}},
	}
}

// forEachBackend runs f as a subtest on every backend.
func forEachBackend(t *testing.T, f func(t *testing.T, c redis.UniversalClient)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f(t, b.client(t))
		})
	}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustLock(t *testing.T, m *reentrant.Mutex) {
	t.Helper()
	if err := m.Lock(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Lock(%s): %v", m.Name(), err)
	}
}

func mustUnlock(t *testing.T, m *reentrant.Mutex) {
	t.Helper()
	if err := m.Unlock(ctxT(t, 10*time.Second)); err != nil {
		t.Fatalf("Unlock(%s): %v", m.Name(), err)
	}
}

func wantHoldCount(t *testing.T, m *reentrant.Mutex, want int) {
	t.Helper()
	got, err := m.HoldCount(ctxT(t, 5*time.Second))
	if err != nil || got != want {
		t.Fatalf("HoldCount = %d, %v; want %d", got, err, want)
	}
}

// eventually polls cond until it holds, failing after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func isErr(err, target error) bool { return errors.Is(err, target) }
