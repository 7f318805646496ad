package multilock_test

import (
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// kind builds one caller's Locker for a named lock.
type kind struct {
	name    string
	clients []redis.UniversalClient // where its keys live
	new     func(t *testing.T, name string) multilock.Locker
}

// mixedKinds returns the lock kinds the mixed test combines, each on its
// own server or servers. Kinds added in other files register through
// moreKinds.
func mixedKinds(t *testing.T) []kind {
	servers := redistest.StartMasters(t, 5)
	client := func(i int) *redis.Client { return servers[i].Client(t) }
	c0, c1 := client(0), client(1)
	red := []redis.UniversalClient{client(2), client(3), client(4)}
	kinds := []kind{
		{"reentrant", []redis.UniversalClient{c0}, func(t *testing.T, n string) multilock.Locker { return reentrant.New(c0, n) }},
		{"spin", []redis.UniversalClient{c1}, func(t *testing.T, n string) multilock.Locker { return spin.New(c1, n) }},
		{"redlock", red, func(t *testing.T, n string) multilock.Locker { return multilock.NewRedLock(red, n) }},
	}
	for _, more := range moreKinds {
		kinds = append(kinds, more(t, c0))
	}
	return kinds
}

// moreKinds adds kinds defined in other files.
var moreKinds []func(t *testing.T, c *redis.Client) kind

// TestLock_mixed_kinds_in_opposite_orders has two callers take one lock of
// every kind, given in opposite orders, 30 times each.
func TestLock_mixed_kinds_in_opposite_orders(t *testing.T) {
	ctx := redistest.Ctx(t, hang)
	kinds := mixedKinds(t)
	names := make([]string, len(kinds))
	for i := range kinds {
		names[i] = redistest.Unique(t)
	}
	caller := func(reverse bool) redistest.Locker {
		var locks []multilock.Locker
		for i, k := range kinds {
			locks = append(locks, k.new(t, names[i]))
		}
		if reverse {
			slices.Reverse(locks)
		}
		return multilock.New(locks)
	}
	rounds, err := redistest.Hammer(ctx, []redistest.Locker{caller(false), caller(true)}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if rounds != 60 {
		t.Fatalf("%d rounds, want 60", rounds)
	}
	var kindNames []string
	for i, k := range kinds {
		kindNames = append(kindNames, k.name)
		assertCleanAll(t, k.clients, names[i])
	}
	t.Logf("kinds: %v", kindNames)
}
