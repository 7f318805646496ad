package spin_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/spin"
)

// children are the entry points of this package's child processes.
func children() redistest.Children {
	return redistest.Children{
		"spin-hammer": redistest.CountingChild(
			func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
				return spin.New(lockkit.New(clients[0]), name)
			}),
	}
}

// TestLock_excludes_across_processes runs three processes that each take
// the lock 30 times to increment a counter with a non-atomic read and
// write; any overlap would lose an increment or reorder fencing tokens.
func TestLock_excludes_across_processes(t *testing.T) {
	s := redistest.StartServer(t)
	c := s.Client(t)
	name := redistest.Unique(t)
	redistest.CountRun{
		Child: "spin-hammer", Addrs: []string{s.Addr()}, Name: name,
		Procs: 3, Goroutines: 1, Rounds: 30, Fenced: true, Timeout: time.Minute,
	}.Run(t)
	redistest.AssertClean(t, c, name)
}
