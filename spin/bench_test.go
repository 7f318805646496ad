package spin_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/spin"
)

// BenchmarkLock_uncontended measures one owner locking and unlocking a
// free lock: two round trips.
func BenchmarkLock_uncontended(b *testing.B) {
	c := redistest.StartServer(b).Client(b)
	counter := redistest.CountCommands(c)
	redistest.BenchLockUnlock(b, spin.New(redistest.Lockkit(b, c), redistest.Unique(b)), counter)
}

// BenchmarkLock_contended has several owners, one goroutine each, take one
// lock b.N times in all, holding it for 100 µs each time, and reports the
// commands sent per acquisition (attempts, releases, renewals; SUBSCRIBE
// is invisible to client hooks and spin never sends it). The reentrant
// lock under the same load is measured for comparison.
func BenchmarkLock_contended(b *testing.B) {
	const hold = 100 * time.Microsecond
	kinds := []struct {
		name string
		new  func(c *lockkit.Client, name string) redistest.Locker
	}{
		{"spin", func(c *lockkit.Client, n string) redistest.Locker { return spin.New(c, n) }},
		{"reentrant", func(c *lockkit.Client, n string) redistest.Locker { return reentrant.New(c, n) }},
	}
	s := redistest.StartServer(b)
	for _, kind := range kinds {
		for _, owners := range []int{2, 8, 32} {
			b.Run(fmt.Sprintf("%s/owners=%d", kind.name, owners), func(b *testing.B) {
				c := s.Client(b)
				counter := redistest.CountCommands(c)
				lc := redistest.Lockkit(b, c)
				name := redistest.Unique(b)
				redistest.BenchContended(b, owners, hold, func() redistest.Locker { return kind.new(lc, name) }, counter)
			})
		}
	}
}
