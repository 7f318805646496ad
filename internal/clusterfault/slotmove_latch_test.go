package clusterfault_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// latchCount is the count of the latch whose slot the test moves.
const latchCount = 3

// TestSlotMove_latch_keeps_its_count_and_wakes_its_Awaits_at_the_new_master
// counts a latch down once, blocks an Await on it in the counter's
// process and in another, and moves the latch's slot to another master,
// counting down once more while the slot is open: that CountDown either
// counts or fails, with the count unchanged. After the move, the count is
// what the count-downs that succeeded left, the Awaits still wait, and
// the last count-down, at the new master, wakes both within wakeBound.
func TestSlotMove_latch_keeps_its_count_and_wakes_its_Awaits_at_the_new_master(t *testing.T) {
	cl := redistest.StartCluster(t)
	counters := redistest.Lockkit(t, cl.Client(t))
	others := redistest.Lockkit(t, cl.Client(t))
	name := redistest.Unique(t)
	l := latch.New(counters, name, latchCount)
	if _, err := l.CountDown(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatalf("CountDown: %v", err)
	}
	near, far := await(t, counters, name), await(t, others, name)

	m := cl.BeginMigration(t, lockKey(name), cl.OtherMaster(t, cl.MasterOf(t, lockKey(name))))
	want := latchCount - 1
	if n, err := l.CountDown(redistest.Ctx(t, callTimeout)); err == nil {
		want = n
	} else {
		t.Logf("CountDown with the slot open: %v", err)
	}
	m.MigrateKeys(t)
	m.Finish(t)

	n, err := l.Count(redistest.Ctx(t, callTimeout))
	if err != nil || n != want {
		t.Fatalf("Count after the move = %d, %v; want %d", n, err, want)
	}
	for ; n > 1; n-- {
		if _, err := l.CountDown(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("CountDown after the move: %v", err)
		}
	}
	redistest.NotYet(t, near, "an Await in the counter's process returned before the count reached 0")
	redistest.NotYet(t, far, "an Await in another process returned before the count reached 0")
	if _, err := l.CountDown(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatalf("the last CountDown: %v", err)
	}
	for _, got := range []<-chan error{near, far} {
		if err := redistest.Receive(t, got, wakeBound, "an Await to return once the count reached 0"); err != nil {
			t.Fatalf("Await = %v; want nil", err)
		}
	}
}

// await starts an Await of the latch name on c and returns its result's
// channel once the Await sleeps on the latch's channel.
func await(t *testing.T, c *lockkit.Client, name string) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	ctx := redistest.Ctx(t, waitBound)
	go func() { got <- latch.New(c, name, latchCount).Await(ctx) }()
	ch := core.KeysFor(c, name).Channel
	redistest.Eventually(t, callTimeout, "the latch's Await to sleep", func() bool {
		return c.Notifier().Sleeping(ch) == 1
	})
	return got
}
