package faultmatrix_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, redistest.Children{"holder": holderChild}) }

// holderChild takes a lock and holds it until the process is killed. Its
// arguments: the kind, the lock's server, the checker's server and the
// lock's name. It prints "held" once it holds the lock and has entered the
// checker, which raised the fences to its tokens. In cohort mode another
// owner of the process waits for the lock beside it, in memory.
func holderChild(args []string) {
	if len(args) != 4 {
		redistest.ChildFatalf("holder: want kind, server, store and name; got %q", args)
	}
	k, ok := kindNamed(args[0])
	if !ok {
		redistest.ChildFatalf("holder: no kind %q", args[0])
	}
	rc := redis.NewClient(&redis.Options{Addr: args[1]})
	store := redis.NewClient(&redis.Options{Addr: args[2]})
	lc := lockkit.New(rc, lockOptions()...)
	o := k.owner(lc, args[3], 0)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	if err := o.Lock(ctx); err != nil {
		redistest.ChildFatalf("holder: Lock: %v", err)
	}
	newChecker(store, k, args[3]).begin(ctx, o)
	if k.cohort {
		// Another owner of the process waits in memory.
		go func() { _ = k.owner(lc, args[3], 1).Lock(context.Background()) }()
	}
	redistest.ChildPrintf("held")
	for range redistest.ChildLines() { // until killed
	}
}
