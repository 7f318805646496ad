package rwlock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// waitTimeout is the generous deadline of every wait that should end
// quickly; reaching it fails the test loudly instead of hanging.
const waitTimeout = 10 * time.Second

// backend is a Redis the behaviour tests run against.
type backend struct {
	name   string
	client func(t *testing.T) redis.UniversalClient
}

// backends returns miniredis and a real standalone server; the real one
// skips (or fails with LOCKKIT_REQUIRE_REDIS=1) without redis-server.
func backends() []backend {
	return []backend{
		{"miniredis", func(t *testing.T) redis.UniversalClient {
			mr, c := redistest.Mini(t)
			minis.Store(c, mr)
			t.Cleanup(func() { minis.Delete(c) })
			return c
		}},
		{"redis", func(t *testing.T) redis.UniversalClient {
			return redistest.StartServer(t).Client(t)
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

// forEachBackend runs f as a parallel subtest on every backend.
func forEachBackend(t *testing.T, f func(t *testing.T, c redis.UniversalClient)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f(t, b.client(t))
		})
	}
}

// ctxT returns a context that ends after d or when the test ends.
func ctxT(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustLock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.Lock(ctxT(t, waitTimeout)); err != nil {
		t.Fatalf("Lock(%s): %v", m.Name(), err)
	}
}

func mustUnlock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.Unlock(ctxT(t, waitTimeout)); err != nil {
		t.Fatalf("Unlock(%s): %v", m.Name(), err)
	}
}

func mustRLock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.RLock(ctxT(t, waitTimeout)); err != nil {
		t.Fatalf("RLock(%s): %v", m.Name(), err)
	}
}

func mustRUnlock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.RUnlock(ctxT(t, waitTimeout)); err != nil {
		t.Fatalf("RUnlock(%s): %v", m.Name(), err)
	}
}

func state(t testing.TB, m *rwlock.RWMutex) rwlock.State {
	t.Helper()
	s, err := m.State(ctxT(t, waitTimeout))
	if err != nil {
		t.Fatalf("State(%s): %v", m.Name(), err)
	}
	return s
}

// wantState checks the mode, reader count and m's hold counts.
func wantState(t testing.TB, m *rwlock.RWMutex, mode rwlock.Mode, readers, holds, rholds int) {
	t.Helper()
	s := state(t, m)
	if s.Mode != mode || s.Readers != readers || s.HoldCount != holds || s.RHoldCount != rholds {
		t.Fatalf("state = %+v; want mode %v, %d readers, HoldCount %d, RHoldCount %d",
			s, mode, readers, holds, rholds)
	}
}

func tryLock(t testing.TB, m *rwlock.RWMutex) bool {
	t.Helper()
	ok, err := m.TryLock(ctxT(t, waitTimeout))
	if err != nil {
		t.Fatalf("TryLock(%s): %v", m.Name(), err)
	}
	return ok
}

func tryRLock(t testing.TB, m *rwlock.RWMutex) bool {
	t.Helper()
	ok, err := m.TryRLock(ctxT(t, waitTimeout))
	if err != nil {
		t.Fatalf("TryRLock(%s): %v", m.Name(), err)
	}
	return ok
}

// eventually polls cond until it holds, failing after timeout.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// async runs f in a goroutine and returns a channel with its result; the
// test waits for it before it ends.
func async(t testing.TB, f func() error) <-chan error {
	t.Helper()
	ch := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ch <- f()
	}()
	t.Cleanup(wg.Wait)
	return ch
}

// await returns the result from ch, failing if none arrives in time.
func await(t testing.TB, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(waitTimeout):
		t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
		return nil
	}
}

// pending checks that ch has no result yet.
func pending(t testing.TB, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned early: %v", what, err)
	default:
	}
}

// context_WithCancel returns a context cancelled by the returned function
// or when the test ends.
func context_WithCancel(t testing.TB) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}
