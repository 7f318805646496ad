package redistest

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// Lockkit returns a lockkit Client of rc, closed in t.Cleanup (before rc,
// which the starting helpers close in their own cleanup registered
// earlier).
func Lockkit(t testing.TB, rc redis.UniversalClient, opts ...lockkit.Option) *lockkit.Client {
	t.Helper()
	c := lockkit.New(rc, opts...)
	if err := c.Err(); err != nil {
		t.Fatalf("lockkit.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// OnServer starts a redis-server and returns it, a lockkit Client of a
// client of it and a fresh lock name: what a test of one lock on a server
// of its own starts from.
func OnServer(t *testing.T) (*Server, *lockkit.Client, string) {
	t.Helper()
	srv := StartServer(t)
	return srv, Lockkit(t, srv.Client(t)), Unique(t)
}

// Silent returns a lockkit Client on miniredis, and the go-redis client
// under it, for input that must be refused before anything reaches Redis:
// when the test ends, it fails if any command was sent through rc (by
// that Client or any other of rc).
func Silent(t testing.TB) (*lockkit.Client, *redis.Client) {
	t.Helper()
	_, rc := Mini(t)
	sent := CountCommands(rc)
	c := Lockkit(t, rc)
	t.Cleanup(func() {
		if n := sent.Total(); n != 0 {
			t.Errorf("%d commands sent for invalid input, want 0", n)
		}
	})
	return c, rc
}

// WantInvalid reports an error (the test goes on) unless err matches
// lockkit.ErrInvalid and its message mentions want; op names the call
// that returned err.
func WantInvalid(t testing.TB, op string, err error, want string) {
	t.Helper()
	if !errors.Is(err, lockkit.ErrInvalid) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s = %v, want ErrInvalid mentioning %q", op, err, want)
	}
}

// ChildLockkit returns, in a child process, a lockkit Client with opts of
// the Redis that spec names (see [SpecClient]) and the go-redis client
// under it; done closes both, the Client first.
func ChildLockkit(spec string, opts ...lockkit.Option) (c *lockkit.Client, rc redis.UniversalClient, done func()) {
	rc = SpecClient(spec)
	c = lockkit.New(rc, opts...)
	return c, rc, func() {
		_ = c.Close()
		_ = rc.Close()
	}
}
