package multilock_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// redlockHammer is the child process of
// TestRedLock_excludes_across_processes: a RedLock over every server it
// is given. Its Clients live as long as the process.
var redlockHammer = redistest.CountingChild(func(clients []redis.UniversalClient, name string) redistest.TokenLocker {
	lcs := make([]*lockkit.Client, len(clients))
	for i, c := range clients {
		lcs[i] = lockkit.New(c)
	}
	return multilock.NewRedLock(lcs, name)
})

// TestRedLock_excludes_across_processes runs three processes that each take
// a RedLock over five masters 20 times to increment a counter with a
// non-atomic read and write; any overlap would lose an increment or reorder
// the fencing tokens.
func TestRedLock_excludes_across_processes(t *testing.T) {
	servers, clients := masters(t, 5)
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	name := redistest.Unique(t)
	redistest.CountRun{
		Child: "redlock-hammer", Addrs: addrs, Name: name,
		Procs: 3, Goroutines: 1, Rounds: 20, Fenced: true, Timeout: time.Minute,
	}.Run(t)
	assertCleanAll(t, clients, name)
}
