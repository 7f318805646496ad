package lockkit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/conformance"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/semaphore"
)

// oddNameWait bounds each wait of the odd-name tests: a wake-up lost on
// a channel whose name went wrong would make it run out.
const oddNameWait = 10 * time.Second

// TestOddNames_work_for_semaphores_latches_and_elections checks the names
// every exclusive kind takes (conformance.OddNames) on the other kinds, on
// a server and a Cluster: a semaphore's waiter is woken by a release, a
// latch's Await by its last count-down, an election's observer is told of
// its leader; and a 64 KiB name is ErrInvalid naming the name. Each kind
// has a prefix of its own, as a name is one kind's.
func TestOddNames_work_for_semaphores_latches_and_elections(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, time.Minute)
		for _, name := range conformance.OddNames(redistest.Unique(t)) {
			semaphoreWakesItsWaiter(t, ctx, c, name)
			latchOpens(t, ctx, c, name)
			electionIsObserved(t, ctx, c, name)
		}
		huge := strings.Repeat("n", 64<<10)
		_, err := semaphore.New(c, huge, 1).TryAcquire(ctx, 1)
		redistest.WantInvalid(t, "semaphore TryAcquire of a 64 KiB name", err, "name")
		_, err = latch.New(c, huge, 1).CountDown(ctx)
		redistest.WantInvalid(t, "latch CountDown of a 64 KiB name", err, "name")
		_, err = election.New(c, huge).Campaign(ctx, "v")
		redistest.WantInvalid(t, "election Campaign of a 64 KiB name", err, "name")
	})
}

// semaphoreWakesItsWaiter checks that a semaphore of one permit named
// name keeps a second Acquire waiting until the first's Release.
func semaphoreWakesItsWaiter(t *testing.T, ctx context.Context, c *lockkit.Client, name string) {
	t.Helper()
	s := semaphore.New(c, name, 1, lockkit.WithPrefix("semaphore"))
	p, err := s.Acquire(ctx, 1)
	if err != nil {
		t.Fatalf("semaphore %q: Acquire: %v", name, err)
	}
	got := make(chan *semaphore.Permits, 1)
	go func() {
		q, err := semaphore.New(c, name, 1, lockkit.WithPrefix("semaphore")).Acquire(redistest.Ctx(t, oddNameWait), 1)
		if err != nil {
			t.Errorf("semaphore %q: the waiter's Acquire: %v", name, err)
		}
		got <- q
	}()
	redistest.NotYet(t, got, "the waiter's Acquire while the permit is held")
	if err := s.Release(ctx, p); err != nil {
		t.Fatalf("semaphore %q: Release: %v", name, err)
	}
	if q := redistest.Receive(t, got, oddNameWait, "the waiter's Acquire"); q != nil {
		if err := s.Release(ctx, q); err != nil {
			t.Fatalf("semaphore %q: the waiter's Release: %v", name, err)
		}
	}
}

// latchOpens checks that an Await of a latch of count 1 named name
// returns once it is counted down.
func latchOpens(t *testing.T, ctx context.Context, c *lockkit.Client, name string) {
	t.Helper()
	l := latch.New(c, name, 1, lockkit.WithPrefix("latch"))
	done := make(chan error, 1)
	go func() {
		done <- latch.New(c, name, 1, lockkit.WithPrefix("latch")).Await(redistest.Ctx(t, oddNameWait))
	}()
	redistest.NotYet(t, done, "Await of a closed latch")
	if _, err := l.CountDown(ctx); err != nil {
		t.Fatalf("latch %q: CountDown: %v", name, err)
	}
	if err := redistest.Receive(t, done, oddNameWait, "Await"); err != nil {
		t.Fatalf("latch %q: Await: %v", name, err)
	}
}

// electionIsObserved checks that an observer of election name is told of
// the leader that wins it, and that the leader can resign.
func electionIsObserved(t *testing.T, ctx context.Context, c *lockkit.Client, name string) {
	t.Helper()
	e := election.New(c, name, lockkit.WithPrefix("election"))
	octx, cancel := context.WithTimeout(ctx, oddNameWait)
	defer cancel()
	obs, err := election.New(c, name, lockkit.WithPrefix("election")).Observe(octx)
	if err != nil {
		t.Fatalf("election %q: Observe: %v", name, err)
	}
	l, err := e.Campaign(ctx, "value\n"+name)
	if err != nil {
		t.Fatalf("election %q: Campaign: %v", name, err)
	}
	for seen := range obs {
		if seen.Value == "value\n"+name {
			break
		}
	}
	if octx.Err() != nil {
		t.Fatalf("election %q: the observer was not told of the leader", name)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatalf("election %q: Resign: %v", name, err)
	}
}
