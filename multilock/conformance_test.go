package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestConformance runs the contract of every exclusive lock on a
// multi-lock of two members, for each kind of member.
func TestConformance(t *testing.T) {
	members := []struct {
		name string
		new  func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker
	}{
		{"reentrant", func(c *lockkit.Client, n string, o ...lockkit.Option) lockkit.Locker {
			return reentrant.New(c, n, o...)
		}},
		{"fair", func(c *lockkit.Client, n string, o ...lockkit.Option) lockkit.Locker { return fair.New(c, n, o...) }},
		{"spin", func(c *lockkit.Client, n string, o ...lockkit.Option) lockkit.Locker { return spin.New(c, n, o...) }},
		{"rwlock", func(c *lockkit.Client, n string, o ...lockkit.Option) lockkit.Locker { return rwlock.New(c, n, o...) }},
	}
	for _, mk := range members {
		t.Run(mk.name, func(t *testing.T) {
			t.Parallel()
			conformance.Run(t, conformance.Kind{
				Name: "multilock of " + mk.name,
				New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
					a, b := name, name
					if name != "" {
						a, b = name+":a", name+":b"
					}
					return multilock.New([]lockkit.Locker{mk.new(c, a, opts...), mk.new(c, b, opts...)})
				},
				Zero: func() []lockkit.Locker { return []lockkit.Locker{new(multilock.Mutex), (*multilock.Mutex)(nil)} },
			})
		})
	}
}

// TestRedLock_conformance runs the contract of every exclusive lock on a
// RedLock over one master.
func TestRedLock_conformance(t *testing.T) {
	conformance.Run(t, conformance.Kind{
		Name: "redlock",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			// A node timeout of a tenth of the lease, at most 250 ms (the
			// default), is missed now and then on a loaded machine, and a
			// release it cuts short is an error the contract's callers do
			// not retry; the node timeout has tests of its own.
			opts = append([]lockkit.Option{multilock.WithNodeTimeout(time.Second)}, opts...)
			return multilock.NewRedLock([]*lockkit.Client{c}, name, opts...)
		},
		Zero: func() []lockkit.Locker { return []lockkit.Locker{new(multilock.RedLock), (*multilock.RedLock)(nil)} },
	})
}
