package semaphore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestPermits_Token_increases_with_every_hold takes holds one after the
// other on one name, from two Clients (as two processes), some held at
// once, some after every permit was released: each hold's token is
// larger than every token before it.
func TestPermits_Token_increases_with_every_hold(t *testing.T) {
	redistest.ForEachBackendName(t, func(t *testing.T, rc redis.UniversalClient, name string) {
		ss := []*semaphore.Semaphore{
			semaphore.New(redistest.Lockkit(t, rc), name, 3),
			semaphore.New(redistest.Lockkit(t, rc), name, 3),
		}
		var last int64
		next := func(p *semaphore.Permits) *semaphore.Permits {
			t.Helper()
			if p.Token() <= last {
				t.Fatalf("token %d after %d", p.Token(), last)
			}
			last = p.Token()
			return p
		}
		for i := range 4 {
			a := next(mustAcquire(t, ss[i%2], 1))
			b := next(mustAcquire(t, ss[(i+1)%2], 2))
			mustRelease(t, a)
			c := next(mustAcquire(t, ss[i%2], 1))
			mustRelease(t, b)
			mustRelease(t, c)
		}
	})
}
