package rwlock_test

import (
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{
		"rw-hammer": hammerChild,
		"rw-reader": readerChild,
		"rw-writer": writerChild,
	})
}

// waitTimeout is the generous deadline of every wait that should end
// quickly; reaching it fails the test loudly instead of hanging.
const waitTimeout = 10 * time.Second

// backends are the kinds of Redis the behaviour tests run on.
var backends = []redistest.Backend{redistest.MiniBackend, redistest.ServerBackend}

// lockKey is the lock hash of name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }

func mustRLock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.RLock(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatalf("RLock(%s): %v", m.Name(), err)
	}
}

func mustRUnlock(t testing.TB, m *rwlock.RWMutex) {
	t.Helper()
	if err := m.RUnlock(redistest.Ctx(t, waitTimeout)); err != nil {
		t.Fatalf("RUnlock(%s): %v", m.Name(), err)
	}
}

func state(t testing.TB, m *rwlock.RWMutex) rwlock.State {
	t.Helper()
	s, err := m.State(redistest.Ctx(t, waitTimeout))
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
	ok, err := m.TryLock(redistest.Ctx(t, waitTimeout))
	if err != nil {
		t.Fatalf("TryLock(%s): %v", m.Name(), err)
	}
	return ok
}

func tryRLock(t testing.TB, m *rwlock.RWMutex) bool {
	t.Helper()
	ok, err := m.TryRLock(redistest.Ctx(t, waitTimeout))
	if err != nil {
		t.Fatalf("TryRLock(%s): %v", m.Name(), err)
	}
	return ok
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

// pending checks that ch has no result yet.
func pending(t testing.TB, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned early: %v", what, err)
	default:
	}
}
