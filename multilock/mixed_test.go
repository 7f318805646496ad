package multilock_test

import (
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// kind builds one caller's Locker for a named lock.
type kind struct {
	name    string
	clients []redis.UniversalClient // where its keys live
	new     func(name string) lockkit.Locker
}

// mixedKinds returns the lock kinds the mixed test combines, each on its
// own server or servers.
func mixedKinds(t *testing.T) []kind {
	servers := redistest.StartMasters(t, 5)
	var clients []redis.UniversalClient
	for _, s := range servers {
		clients = append(clients, s.Client(t))
	}
	lcs := lockkits(t, clients)
	red := lcs[2:]
	return []kind{
		{"reentrant", clients[:1], func(n string) lockkit.Locker { return reentrant.New(lcs[0], n) }},
		{"spin", clients[1:2], func(n string) lockkit.Locker { return spin.New(lcs[1], n) }},
		{"redlock", clients[2:], func(n string) lockkit.Locker { return multilock.NewRedLock(red, n) }},
	}
}

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
		var locks []lockkit.Locker
		for i, k := range kinds {
			locks = append(locks, k.new(names[i]))
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
	for i, k := range kinds {
		assertCleanAll(t, k.clients, names[i])
	}
}
