package reentrant_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// answeredReleases counts the hash lock's release scripts that Redis
// answered.
type answeredReleases struct{ n atomic.Int64 }

func (r *answeredReleases) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *answeredReleases) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if isRelease(cmd) && err == nil {
			r.n.Add(1)
		}
		return err
	}
}

func (r *answeredReleases) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestLocalHandoff_the_release_of_a_hold_lost_while_lent_is_reported_after_its_loss:
// the process's hold is lost (its key vanished and the watchdog said so)
// while a Mutex holds it, and the Lost hook is slow to return. The
// process gives the lost hold back in Redis at once, woken by the loss,
// but its end (Released) is reported only after the Lost hook returned:
// a Trace sees the hold's Acquired, Lost, Released, in that order.
func TestLocalHandoff_the_release_of_a_hold_lost_while_lent_is_reported_after_its_loss(t *testing.T) {
	answered := &answeredReleases{}
	_, c, lc, name := hookedProcess(t, answered)
	ctx := redistest.Ctx(t, redistest.Hang)
	var (
		mu   sync.Mutex
		hook []string
	)
	add := func(h string) {
		mu.Lock()
		hook = append(hook, h)
		mu.Unlock()
	}
	inLost, lostGoOn := make(chan struct{}), make(chan struct{})
	trace := &lockkit.Trace{
		Acquired: func(lockkit.AcquiredInfo) { add("Acquired") },
		Released: func(lockkit.ReleasedInfo) { add("Released") },
		Lost: func(lockkit.LostInfo) {
			close(inLost)
			select {
			case <-lostGoOn:
			case <-time.After(redistest.Hang): // bounded; the test fails then
			}
			add("Lost")
		},
	}
	holder := reentrant.New(lc, name, handoff, lockkit.WithWatchdogTimeout(time.Minute), lockkit.WithTrace(trace))
	redistest.MustLock(t, holder) // the scripts are loaded
	redistest.MustUnlock(t, holder)
	redistest.MustLock(t, holder)
	before := answered.n.Load()
	if err := c.Del(ctx, "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	lc.Watchdog().Check()
	redistest.Receive(t, inLost, redistest.Hang, "the Lost hook")
	redistest.Eventually(t, redistest.Hang, "the lost hold's release to be answered", func() bool { return answered.n.Load() == before+1 })
	mu.Lock()
	early := slices.Clone(hook)
	mu.Unlock()
	close(lostGoOn)
	if want := []string{"Acquired", "Released", "Acquired"}; !slices.Equal(early, want) {
		t.Errorf("events while the Lost hook ran, the lost hold's release answered: %v; want %v", early, want)
	}
	redistest.Eventually(t, redistest.Hang, "Released to be reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(hook, "Released")
	})
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"Acquired", "Released", "Acquired", "Lost", "Released"}; !slices.Equal(hook, want) {
		t.Errorf("events %v; want %v", hook, want)
	}
}
