package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// Client returns a new go-redis client, with default options, that dials
// the server through p, so that [Proxy.Cut] and [Proxy.SetDelay] act on
// its connections. It is closed in t.Cleanup.
func (p *Proxy) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
