package redistest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	RegisterChild("counting-queue", CountingChild(func(clients []redis.UniversalClient, name string) TokenLocker {
		return &queueLock{c: clients[0], name: name}
	}))
	RegisterChild("counting-none", CountingChild(func([]redis.UniversalClient, string) TokenLocker {
		return noLock{}
	}))
	RegisterChild("counting-forgetful", CountingChild(func(clients []redis.UniversalClient, name string) TokenLocker {
		return forgetfulLock{c: clients[0], key: CountRun{Name: name}.countKey()}
	}))
}

// forgetfulLock excludes nobody and, on Unlock, deletes the counter: an
// increment lost for sure.
type forgetfulLock struct {
	noLock
	c   redis.UniversalClient
	key string
}

func (l forgetfulLock) Unlock(ctx context.Context) error { return l.c.Del(ctx, l.key).Err() }

func TestCountRun_passes_with_a_working_lock(t *testing.T) {
	c, name := newQueueLock(t)
	CountRun{
		Child: "counting-queue", Addrs: []string{c.Options().Addr}, Name: name,
		Procs: 3, Goroutines: 4, Rounds: 5, Fenced: true, Timeout: time.Minute,
	}.Run(t)
	if n, err := c.Get(Ctx(t, queryTimeout), CountRun{Name: name}.countKey()).Int(); n != 60 {
		t.Fatalf("counter = %d, %v; want 60 (3 processes × 4 goroutines × 5 rounds)", n, err)
	}
}

func TestCountRun_fails_when_an_increment_is_lost(t *testing.T) {
	mr, _ := Mini(t)
	run := CountRun{
		Child: "counting-forgetful", Addrs: []string{mr.Addr()}, Name: Unique(t),
		Procs: 1, Goroutines: 1, Rounds: 2, Timeout: time.Minute,
	}
	wantFailure(t, func(tb testing.TB) { run.Run(tb) }, "want 2 (lost updates")
}

func TestCountRun_fails_when_tokens_do_not_grow(t *testing.T) {
	mr, _ := Mini(t)
	run := CountRun{
		Child: "counting-none", Addrs: []string{mr.Addr()}, Name: Unique(t),
		Procs: 1, Goroutines: 1, Rounds: 2, Fenced: true, Timeout: time.Minute,
	}
	wantFailure(t, func(tb testing.TB) { run.Run(tb) }, "round 1: token 1 after token 1")

	// Without fencing the same child runs to the end.
	run.Name, run.Fenced = Unique(t), false
	run.Run(t)
}
