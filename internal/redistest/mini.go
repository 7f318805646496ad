package redistest

import (
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// minis maps each client returned by Mini to its miniredis until the test
// that started them ends.
var minis sync.Map

// Mini starts an embedded miniredis server and returns it with a go-redis
// client connected to it. Both are closed in t.Cleanup, the client first.
// Mini needs no redis-server and never skips.
func Mini(t testing.TB) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	m := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: m.Addr()})
	minis.Store(c, m)
	t.Cleanup(func() {
		minis.Delete(c)
		_ = c.Close()
	})
	return m, c
}

// MiniFor returns the miniredis behind c when c is a client that [Mini]
// returned (directly or through [MiniBackend]) and its test is still
// running. Tests that run on several backends use it for what only
// miniredis can do, such as moving its clock with FastForward or SetTime.
func MiniFor(c redis.UniversalClient) (*miniredis.Miniredis, bool) {
	m, ok := minis.Load(c)
	if !ok {
		return nil, false
	}
	return m.(*miniredis.Miniredis), true
}
