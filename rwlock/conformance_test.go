package rwlock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/rwlock"
)

// TestConformance runs the contract of every exclusive lock on the write
// side of the read-write lock.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Kind{
		Name: "rwlock",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			return rwlock.New(c, name, opts...)
		},
		Zero: func() []lockkit.Locker { return []lockkit.Locker{new(rwlock.RWMutex), (*rwlock.RWMutex)(nil)} },
	})
}
