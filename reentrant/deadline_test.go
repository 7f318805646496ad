package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// deadlineKinds are the kinds whose calls must honour their ctx against a
// server that is down or stalled.
var deadlineKinds = []struct {
	name string
	new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
}{
	{"reentrant", reentrant.New},
	{"spin", spin.New},
	{"fair", fair.New},
}

// returnsWithin checks that call, given a ctx of d, returns an error within
// d and a second of scheduling noise: far below go-redis's retries (about
// 2 s against a stopped server) and read timeout (3 s against a stalled one).
func returnsWithin(t *testing.T, what string, d time.Duration, call func(context.Context) error) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	err := call(c)
	if took := time.Since(start); took > d+time.Second {
		t.Errorf("%s with a %v ctx returned after %v", what, d, took.Round(time.Millisecond))
	}
	if err == nil {
		t.Errorf("%s = nil; want an error", what)
	}
}

func tryLock(m *reentrant.Mutex) func(context.Context) error {
	return func(c context.Context) error {
		ok, err := m.TryLock(c)
		if ok {
			return nil
		}
		return err
	}
}

func TestCalls_return_within_ctx_when_the_server_is_down(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			s := redistest.StartServer(t)
			m := k.new(redistest.Lockkit(t, s.Client(t)), redistest.Unique(t))
			redistest.MustLock(t, m) // the connections are open
			s.Stop(t)
			const d = 300 * time.Millisecond
			returnsWithin(t, "Unlock", d, m.Unlock)
			returnsWithin(t, "Lock", d, m.Lock)
			returnsWithin(t, "TryLock", d, tryLock(m))
			returnsWithin(t, "IsLocked", d, func(c context.Context) error {
				_, err := m.IsLocked(c)
				return err
			})
		})
	}
}

func TestCalls_return_within_ctx_when_the_server_stalls(t *testing.T) {
	for _, k := range deadlineKinds {
		t.Run(k.name, func(t *testing.T) {
			s := redistest.StartServer(t)
			lc := redistest.Lockkit(t, s.Client(t))
			name := redistest.Unique(t)
			holder := k.new(lc, name)
			redistest.MustLock(t, holder)
			m := k.new(lc, name)
			const d = 300 * time.Millisecond
			s.Stall(t, 3*time.Second)
			returnsWithin(t, "Lock", d, m.Lock)
			returnsWithin(t, "TryLock", d, tryLock(m))
			returnsWithin(t, "Unlock", d, holder.Unlock)
			// Once the server answers again, the Unlock left behind is
			// settled by calling it again, and m gets the lock.
			redistest.Eventually(t, 10*time.Second, "the holder's Unlock to settle", func() bool {
				return holder.Unlock(redistest.Ctx(t, time.Second)) == nil
			})
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
		})
	}
}
