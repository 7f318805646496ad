package failover_test

import (
	"context"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// kind is a lock kind as the failover tests take it: the holder's side and
// the side of the other owner, which waits for the holder. Both are the
// kind's conformance constructor, except for the read side of an rwlock,
// held by a reader and waited for by a writer.
type kind struct {
	name           string
	holder, waiter func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker
	// names are the Redis lock names a lock called name uses: its own, or
	// its members' for a multi-lock.
	names func(name string) []string
}

// kinds are every lock kind, made as the conformance suite makes them.
func kinds() []kind {
	single := func(name string) []string { return []string{name} }
	exclusive := func(k conformance.Kind) kind {
		return kind{name: k.Name, holder: k.New, waiter: k.New, names: single}
	}
	rw := conformance.Of("rwlock", rwlock.New)
	multi := conformance.Kind{
		Name: "multilock",
		New: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
			a, b := memberNames(name)
			return multilock.New([]lockkit.Locker{reentrant.New(c, a, opts...), reentrant.New(c, b, opts...)})
		},
	}
	return []kind{
		exclusive(conformance.Of("reentrant", reentrant.New)),
		exclusive(conformance.Of("fair", fair.New)),
		exclusive(conformance.Of("spin", fastSpin)),
		exclusive(rw),
		{
			name: "rwlock-read",
			holder: func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker {
				return reader{rwlock.New(c, name, opts...)}
			},
			waiter: rw.New,
			names:  single,
		},
		{name: multi.Name, holder: multi.New, waiter: multi.New, names: func(name string) []string {
			a, b := memberNames(name)
			return []string{a, b}
		}},
	}
}

// memberNames are the names of a multi-lock's two members.
func memberNames(name string) (string, string) { return name + ":a", name + ":b" }

// fastSpin is a spin lock whose backoff is short enough for the tests.
func fastSpin(c *lockkit.Client, name string, opts ...lockkit.Option) *spin.Mutex {
	return spin.New(c, name, append([]lockkit.Option{spin.WithBackoff(time.Millisecond, 8*time.Millisecond)}, opts...)...)
}

// reader is the read side of an rwlock with the capabilities of a hold:
// its lost signal and its token.
type reader struct{ *rwlock.RWMutex }

func (r reader) Lock(ctx context.Context) error            { return r.RLock(ctx) }
func (r reader) TryLock(ctx context.Context) (bool, error) { return r.TryRLock(ctx) }
func (r reader) Unlock(ctx context.Context) error          { return r.RUnlock(ctx) }
func (r reader) Lost() <-chan struct{}                     { return r.RLost() }
func (r reader) Token() int64                              { return r.RToken() }

// The capabilities of a hold.
type (
	loser   interface{ Lost() <-chan struct{} }
	tokener interface{ Token() int64 }
)

// parts returns the locks whose holds l takes: its members for a
// multi-lock, else l itself.
func parts(l lockkit.Locker) []lockkit.Locker {
	if m, ok := l.(*multilock.Mutex); ok {
		return m.Locks()
	}
	return []lockkit.Locker{l}
}

// lostSignals returns the lost signals of l's current holds; call it after
// Lock.
func lostSignals(l lockkit.Locker) []<-chan struct{} {
	var chs []<-chan struct{}
	for _, p := range parts(l) {
		chs = append(chs, p.(loser).Lost())
	}
	return chs
}

// tokens returns the fencing tokens of l's current holds, in the order of
// parts.
func tokens(l lockkit.Locker) []int64 {
	var ts []int64
	for _, p := range parts(l) {
		ts = append(ts, p.(tokener).Token())
	}
	return ts
}
