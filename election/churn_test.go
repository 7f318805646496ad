package election_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// candidate is an election seen as a lock: Lock campaigns, Unlock
// resigns, Lost is the end of the leadership's context. TryLock, which an
// election has not, reads the leader and reports false while there is
// one: it is only called while another leads.
type candidate struct {
	e *election.Election
	l *election.Leadership
}

func (c *candidate) Lock(ctx context.Context) (err error) {
	c.l, err = c.e.Campaign(ctx, "v")
	return err
}

func (c *candidate) TryLock(ctx context.Context) (bool, error) {
	who, err := c.e.Leader(ctx)
	if err != nil || who != (election.Leader{}) {
		return false, err
	}
	return false, fmt.Errorf("%s: nobody leads", c.e.Name())
}

func (c *candidate) Unlock(ctx context.Context) error { return c.l.Resign(ctx) }
func (c *candidate) Name() string                     { return c.e.Name() }
func (c *candidate) Lost() <-chan struct{}            { return c.l.Context().Done() }

// TestChurn_of_many_names_leaves_nothing_behind: a thousand elections,
// each led, campaigned for and given up, contended from two Clients, some
// leaderships lost and some Resigns in doubt, leave the Clients keeping no
// channel, watchdog hold or local entry, no goroutine, no subscriber on
// the server and no key but the fencing counters and the released tokens
// still in their 10 s.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	redistest.Churn{New: func(c *lockkit.Client, name string) lockkit.Locker {
		return &candidate{e: election.New(c, name)}
	}}.Run(t)
}

// TestObserve_of_many_names_leaves_nothing_behind: observers of a
// thousand elections, each told the leader and then ended by their ctx,
// leave the Client keeping no channel and no goroutine, and the server no
// subscriber.
func TestObserve_of_many_names_leaves_nothing_behind(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	prefix := redistest.Unique(t)
	lc := redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix))
	base := runtime.NumGoroutine()
	for i := range 1000 {
		ctx, cancel := context.WithTimeout(context.Background(), redistest.Hang)
		changes, err := election.New(lc, fmt.Sprintf("n%d", i)).Observe(ctx)
		if err != nil {
			cancel()
			t.Fatalf("Observe: %v", err)
		}
		redistest.Receive(t, changes, 10*time.Second, "the first leader observed")
		cancel()
		for range changes {
		}
	}
	redistest.Settled(t, base, lc)
	redistest.NoSubscriptions(t, rc, prefix)
	redistest.KeysSettle(t, rc, prefix, redistest.LockKept)
}
