package spin_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Kind{
		Name: "spin",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			return spin.New(c, name, append([]lockkit.Option{spin.WithBackoff(time.Millisecond, 8*time.Millisecond)}, opts...)...)
		},
		Zero: func() []lockkit.Locker { return []lockkit.Locker{new(spin.Mutex), (*spin.Mutex)(nil)} },
	})
}

func TestWithBackoff_invalid_returns_ErrInvalid(t *testing.T) {
	_, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	cases := []struct {
		name string
		opt  lockkit.Option
	}{
		{"zero floor", spin.WithBackoff(0, time.Second)},
		{"negative floor", spin.WithBackoff(-time.Millisecond, time.Second)},
		{"floor above cap", spin.WithBackoff(2*time.Second, time.Second)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			redistest.WantErr(t, spin.New(lc, "x", tc.opt).Lock(context.Background()), lockkit.ErrInvalid)
		})
	}
	// WithBackoff belongs to spin locks: a reentrant lock refuses it…
	redistest.WantErr(t, reentrant.New(lc, "x", spin.WithBackoff(time.Millisecond, time.Second)).Lock(context.Background()), lockkit.ErrInvalid)
	// …but as a Client default it only sets the default of spin locks.
	withDefault := redistest.Lockkit(t, c, spin.WithBackoff(time.Millisecond, time.Second))
	m := reentrant.New(withDefault, redistest.Unique(t))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
}

// TestLock_sleep_never_outlasts_holder_lease shows that a waiter whose
// backoff would sleep for a minute still takes the lock as soon as the
// holder's lease ends: each sleep is cut to the lease the attempt reported.
func TestLock_sleep_never_outlasts_holder_lease(t *testing.T) {
	c := redistest.StartServer(t).Client(t)
	lc := redistest.Lockkit(t, c)
	name := redistest.Unique(t)
	a := spin.New(lc, name, lockkit.WithLease(150*time.Millisecond))
	b := spin.New(lc, name, spin.WithBackoff(time.Minute, time.Minute))
	redistest.MustLock(t, a)
	start := time.Now()
	redistest.MustLock(t, b)
	// Without the cut, the first sleep alone exceeds 3 s with probability 0.95.
	if waited := time.Since(start); waited > 150*time.Millisecond+time.Second {
		t.Fatalf("b waited %v for a 150ms lease", waited)
	}
	redistest.MustUnlock(t, b)
	redistest.AssertClean(t, c, name)
}
