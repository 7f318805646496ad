package adminfault_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// vanishing is a way for a lock's keys to vanish from the servers while it
// is held.
type vanishing struct {
	name string
	do   func(t *testing.T, e *env)
}

// vanishings are the ways the tests make a lock's keys vanish.
var vanishings = []vanishing{
	{"DEL", func(t *testing.T, e *env) { e.del(t) }},
	{"FLUSHDB", func(t *testing.T, e *env) { e.Admin(t, "flushdb") }},
	{"FLUSHALL", func(t *testing.T, e *env) { e.Admin(t, "flushall") }},
	{"evicted under allkeys-lru", func(t *testing.T, e *env) { e.evict(t, "allkeys-lru") }},
	{"evicted under volatile-lru", func(t *testing.T, e *env) { e.evict(t, "volatile-lru") }},
}

// TestVanishedKeys_the_holder_is_told_within_a_renewal_and_the_waiters_take_the_lock
// makes a held lock's keys vanish (DEL of every key of its name, FLUSHDB,
// FLUSHALL, eviction under allkeys-lru and volatile-lru) while waiters of
// the holder's Client and of another wait: the holder's lost signal closes
// within a renewal interval (lease/3) and a round trip; its Unlock
// returns ErrLost; the waiters take the lock within a lease each, with
// tokens larger than the lost hold's; nothing is left.
func TestVanishedKeys_the_holder_is_told_within_a_renewal_and_the_waiters_take_the_lock(t *testing.T) {
	for _, v := range vanishings {
		t.Run(v.name, func(t *testing.T) {
			forEachKind(t, func(t *testing.T, e *env) {
				holder, old := e.held(t)
				w1, w2 := e.waiters(t)

				v.do(t, e)
				redistest.Eventually(t, lease/3+lostSlack, "the holder to be told its hold is lost", func() bool {
					return redistest.AnyClosed(holder.Lost())
				})
				if err := holder.Unlock(redistest.Ctx(t, callBound)); !errors.Is(err, lockkit.ErrLost) {
					t.Errorf("Unlock of the vanished hold = %v, want ErrLost", err)
				}
				serveAfter(t, lease+lostSlack, old, w1, w2)
				e.Clean(t, e.Name)
			})
		})
	}
}

// lostSlack is what a bound on a loss's report allows beyond the
// watchdog's schedule: a round trip on a busy machine.
const lostSlack = 500 * time.Millisecond

// del deletes every key of e's lock on every server (its fencing counter
// too), as an operator cleaning up by hand does.
func (e *env) del(t *testing.T) {
	t.Helper()
	for _, c := range e.Admins {
		ctx := redistest.Ctx(t, callBound)
		for _, n := range e.K.Names(e.Name) {
			keys, err := c.Keys(ctx, "*{"+n+"}*").Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) == 0 {
				t.Fatalf("no keys of %q on %s", n, c.Options().Addr)
			}
			if err := c.Del(ctx, keys...).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// evict makes the servers of e evict keys under policy until none of the
// lock's hashes is left: in one pipeline, so that the server serves
// nobody else meanwhile, it sets maxmemory to 1 byte, checks that the
// hashes are gone (before each command a server over its maxmemory evicts
// what the policy lets it), and lifts maxmemory again. A call served while the memory is
// full fails with the OOM error instead (see the full memory test).
func (e *env) evict(t *testing.T, policy string) {
	t.Helper()
	e.Admin(t, "config", "set", "maxmemory-policy", policy)
	for _, c := range e.Admins {
		ctx := redistest.Ctx(t, callBound)
		var hashes []string
		for _, n := range e.K.Names(e.Name) {
			hashes = append(hashes, "lockkit:{"+n+"}")
		}
		var left *redis.IntCmd
		_, err := c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.ConfigSet(ctx, "maxmemory", "1")
			left = pipe.Exists(ctx, hashes...)
			pipe.ConfigSet(ctx, "maxmemory", "0")
			return nil
		})
		if err != nil {
			t.Fatalf("evicting on %s: %v", c.Options().Addr, err)
		}
		if left.Val() != 0 {
			t.Fatalf("%d of the lock's hashes %q left on %s after the eviction", left.Val(), hashes, c.Options().Addr)
		}
	}
}
