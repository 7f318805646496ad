package spin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// attemptsWithin runs m.Lock against a held lock with a ctx of d and
// returns how many attempts it sent, counted by counter; the Lock must
// fail with the deadline.
func attemptsWithin(t *testing.T, m *spin.Mutex, counter *redistest.Counter, d time.Duration) int64 {
	t.Helper()
	counter.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	redistest.WantErr(t, m.Lock(ctx), lockkit.ErrNotObtained, context.DeadlineExceeded)
	return counter.Scripts()
}

// TestWithBackoff_as_Client_default_paces_the_Clients_spin_locks: a
// Client's backoff (an hour, constant) is its spin locks' default: a
// waiter attempts once in 300 ms, where the default backoff (1 ms,
// doubling) would attempt a handful of times; a lock's own backoff
// (20 ms) overrides it.
func TestWithBackoff_as_Client_default_paces_the_Clients_spin_locks(t *testing.T) {
	srv, name, holder, c, counter := heldElsewhere(t)
	lc := redistest.Lockkit(t, c, spin.WithConstantBackoff(time.Hour))
	const d = 300 * time.Millisecond
	if n := attemptsWithin(t, spin.New(lc, name), counter, d); n != 1 {
		t.Fatalf("a spin lock of a Client with an hour's backoff sent %d attempts in %v, want 1", n, d)
	}
	if n := attemptsWithin(t, spin.New(lc, name, spin.WithConstantBackoff(20*time.Millisecond)), counter, d); n < 3 {
		t.Fatalf("a spin lock with its own 20 ms backoff sent %d attempts in %v, want several", n, d)
	}
	redistest.MustUnlock(t, holder)
	redistest.AssertClean(t, srv.Client(t), name)
}

// TestBackoff_and_waiter_timeout_options_apply_to_their_own_kind: a spin
// lock refuses a fair lock's WithWaiterTimeout and a fair lock refuses
// WithBackoff, with ErrInvalid naming the option; as Client defaults each
// only sets its own kind's default, and the other kind works.
func TestBackoff_and_waiter_timeout_options_apply_to_their_own_kind(t *testing.T) {
	_, c := redistest.Mini(t)
	lc := redistest.Lockkit(t, c)
	for _, tc := range []struct {
		name, option string
		lock         lockkit.Locker
	}{
		{"WithWaiterTimeout on a spin lock", "WithWaiterTimeout", spin.New(lc, "x", fair.WithWaiterTimeout(time.Second))},
		{"WithBackoff on a fair lock", "WithBackoff", fair.New(lc, "x", spin.WithBackoff(time.Millisecond, time.Second))},
		{"WithConstantBackoff on a fair lock", "WithConstantBackoff", fair.New(lc, "x", spin.WithConstantBackoff(time.Millisecond))},
		{"WithExponentialBackoff on a fair lock", "WithExponentialBackoff", fair.New(lc, "x", spin.WithExponentialBackoff(time.Millisecond, time.Second, 2))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.lock.Lock(redistest.Ctx(t, time.Second))
			redistest.WantErr(t, err, lockkit.ErrInvalid)
			if !strings.Contains(err.Error(), tc.option) {
				t.Fatalf("err = %v; want it to name %s", err, tc.option)
			}
		})
	}
	defaults := redistest.Lockkit(t, c, spin.WithBackoff(time.Millisecond, time.Second), fair.WithWaiterTimeout(time.Second))
	for _, m := range []lockkit.Locker{spin.New(defaults, redistest.Unique(t)), fair.New(defaults, redistest.Unique(t))} {
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
	}
}

// heldElsewhere starts a redis-server with a spin lock held on a Client
// of its own, and returns the server, the lock's name, its holder, and a
// second go-redis client of the server whose commands counter counts.
func heldElsewhere(t *testing.T) (srv *redistest.Server, name string, holder *spin.Mutex, c *redis.Client, counter *redistest.Counter) {
	t.Helper()
	srv = redistest.StartServer(t)
	name = redistest.Unique(t)
	holder = spin.New(redistest.Lockkit(t, srv.Client(t)), name)
	redistest.MustLock(t, holder)
	c = srv.Client(t)
	return srv, name, holder, c, redistest.CountCommands(c)
}
