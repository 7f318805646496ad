package semaphore_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// onePermit is a semaphore of one permit seen as a lock: Lock acquires the
// permit, Unlock releases it, Lost is the lost signal of the permit held.
type onePermit struct {
	s *semaphore.Semaphore
	p *semaphore.Permits
}

func (o *onePermit) Lock(ctx context.Context) (err error) {
	o.p, err = o.s.Acquire(ctx, 1)
	return err
}

func (o *onePermit) TryLock(ctx context.Context) (bool, error) {
	p, err := o.s.TryAcquire(ctx, 1)
	if p != nil {
		o.p = p
	}
	return p != nil, err
}

func (o *onePermit) Unlock(ctx context.Context) error { return o.p.Release(ctx) }
func (o *onePermit) Name() string                     { return o.s.Name() }
func (o *onePermit) Lost() <-chan struct{}            { return o.p.Lost() }

// TestChurn_of_many_names_leaves_nothing_behind: a thousand semaphores of
// one permit, each acquired, refused, waited for and given up, contended
// from two Clients, some holds lost and some Releases in doubt, leave the
// Clients keeping no channel, watchdog hold or local entry, no goroutine,
// no subscriber on the server and no key (no queue, no lease) but the
// fencing counters and the released tokens still in their 10 s.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{
		New: func(c *lockkit.Client, name string) lockkit.Locker {
			return &onePermit{s: semaphore.New(c, name, 1)}
		},
		Lose: func(ctx context.Context, rc *redis.Client, prefix, name string) error {
			return rc.Del(ctx, prefix+":{"+name+"}", prefix+":{"+name+"}:leases").Err()
		},
	}.Run(t)
}
