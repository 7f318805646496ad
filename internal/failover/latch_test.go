package failover_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// latchCount is the count of the latch awaited across the failover.
const latchCount = 3

// latchProbe is a latch counted down before the failover, and an Await
// blocked on it meanwhile. A latch has no holder: what a failover can do
// to it is lose count-downs that were not replicated (the latch then
// waits for them again) and break its waiter's subscription.
type latchProbe struct {
	counter *latch.Latch
	got     <-chan error // the Await's result
}

// awaitLatch counts the latch called name down once on counters, and
// starts an Await on waiters, which it returns once that Await sleeps on
// the latch's channel.
func awaitLatch(t *testing.T, counters, waiters *lockkit.Client, name string) *latchProbe {
	t.Helper()
	p := &latchProbe{counter: latch.New(counters, name, latchCount)}
	p.countDownTo(t, latchCount-1)
	got := make(chan error, 1)
	ctx := redistest.Ctx(t, waiterBound+settleBound+wakeUpBound)
	go func() { got <- latch.New(waiters, name, latchCount).Await(ctx) }()
	p.got = got
	ch := core.KeysFor(waiters, name).Channel
	redistest.Eventually(t, callTimeout, "the latch's Await to sleep", func() bool {
		return waiters.Notifier().Sleeping(ch) == 1
	})
	return p
}

// countDownTo counts the latch down until want is left, reading the count
// before each count-down (one whose reply was lost may have counted) and
// retrying while the clients find the new master (see retry).
func (p *latchProbe) countDownTo(t *testing.T, want int) {
	t.Helper()
	retry(t, fmt.Sprintf("counting the latch down to %d", want), func(ctx context.Context) error {
		n, err := p.counter.Count(ctx)
		if err == nil && n > want {
			n, err = p.counter.CountDown(ctx)
		}
		if err == nil && n < want {
			t.Fatalf("the latch's count is %d, below %d", n, want)
		}
		if err == nil && n != want {
			err = fmt.Errorf("count %d, want %d", n, want)
		}
		return err
	})
}

// check checks the latch once the failover has settled. The count-down
// made before the replicas caught up must have survived; the one made
// after (unreplicated when the master failed) may have been lost, except
// when the failover is lossless. Either way the Await, still blocked,
// returns once the count-downs made after the failover open the latch,
// and not before.
func (p *latchProbe) check(t *testing.T, lossless bool) {
	var n int
	retry(t, "the latch's Count after the failover", func(ctx context.Context) (err error) {
		n, err = p.counter.Count(ctx)
		return err
	})
	switch {
	case n == latchCount:
		t.Fatalf("count %d after the failover: the replicated count-down was lost", n)
	case lossless && n != latchCount-2:
		t.Fatalf("count %d after a failover that loses no write, want %d", n, latchCount-2)
	case n != latchCount-1 && n != latchCount-2:
		t.Fatalf("count %d after the failover, want %d or %d", n, latchCount-1, latchCount-2)
	}
	t.Logf("the unreplicated count-down survived the failover: %v", n == latchCount-2)
	p.countDownTo(t, 1)
	select {
	case err := <-p.got:
		t.Fatalf("Await returned %v before the latch opened", err)
	default:
	}
	p.countDownTo(t, 0)
	if err := redistest.Receive(t, p.got, wakeUpBound, "the blocked Await to return once the latch opened"); err != nil {
		t.Fatalf("the Await blocked across the failover: %v", err)
	}
}
