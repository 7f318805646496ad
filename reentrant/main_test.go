package reentrant_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
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
			mr, c := redistest.Mini(t)
			minis.Store(c, mr)
			t.Cleanup(func() { minis.Delete(c) })
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

// minis maps the miniredis backends' clients to their servers.
var minis sync.Map

// miniFor returns the miniredis behind c, if c is a miniredis backend.
func miniFor(c redis.UniversalClient) (*miniredis.Miniredis, bool) {
	mr, ok := minis.Load(c)
	if !ok {
		return nil, false
	}
	return mr.(*miniredis.Miniredis), true
}

// countingMini returns a miniredis client whose commands are counted.
func countingMini(t *testing.T) (*redis.Client, *redistest.Counter) {
	_, c := redistest.Mini(t)
	counter := redistest.NewCounter()
	c.AddHook(counter.Hook())
	return c, counter
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
