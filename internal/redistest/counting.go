package redistest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// childStepTimeout bounds each quick step of a counting child that the
// test waits for: getting ready, and exiting once it is done.
const childStepTimeout = 30 * time.Second

// CountingChild returns the entry point of a child process, to give [Main]
// in [Children], that puts a lock's mutual exclusion to the test across
// processes; [CountRun] starts and drives such children.
//
// The child connects to the servers the test names and prints "ready".
// Once it reads "go" it runs goroutines that each take a lock of their own
// from newLock (given a client of every server) and, round after round,
// lock it, read a counter on the first server, write it back one higher and
// unlock. Two holders at once would lose an increment. With fencing on,
// each holder also swaps its fencing token into a key beside the counter
// and fails if the token it replaces is not smaller. The child prints
// "done" when every goroutine has finished, and exits with status 1 at the
// first error.
func CountingChild(newLock func(clients []redis.UniversalClient, name string) TokenLocker) func(args []string) {
	return func(args []string) {
		run, err := parseCountArgs(args)
		if err != nil {
			ChildFatalf("counting child: %v", err)
		}
		clients := make([]redis.UniversalClient, len(run.Addrs))
		for i, addr := range run.Addrs {
			clients[i] = redis.NewClient(&redis.Options{Addr: addr})
			defer clients[i].Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), run.Timeout)
		defer cancel()
		ChildPrintf("ready")
		if line := <-ChildLines(); line != "go" {
			ChildFatalf("got %q, want go", line)
		}
		var wg sync.WaitGroup
		for range run.Goroutines {
			m := newLock(clients, run.Name)
			wg.Go(func() {
				for i := range run.Rounds {
					if err := m.Lock(ctx); err != nil {
						ChildFatalf("round %d: Lock: %v", i, err)
					}
					if err := run.increment(ctx, clients[0], m); err != nil {
						ChildFatalf("round %d: %v", i, err)
					}
					if err := m.Unlock(ctx); err != nil {
						ChildFatalf("round %d: Unlock: %v", i, err)
					}
				}
			})
		}
		wg.Wait()
		ChildPrintf("done")
	}
}

// CountRun is a run of [CountingChild] processes against one lock.
type CountRun struct {
	Child      string        // the name the child has in the package's Children
	Addrs      []string      // the servers; the counter lives on the first
	Name       string        // the lock's name
	Procs      int           // child processes
	Goroutines int           // goroutines per process, each its own owner
	Rounds     int           // holds each goroutine takes
	Fenced     bool          // also check that fencing tokens grow
	Timeout    time.Duration // bounds each child's work, and the wait for it
}

// Run starts the children, lets them all go at once, waits for every one
// to finish successfully, and fails the test unless the counter ends at
// Procs × Goroutines × Rounds: a lost increment means that two holders
// overlapped.
func (r CountRun) Run(t testing.TB) {
	t.Helper()
	children := make([]*Child, r.Procs)
	for i := range children {
		children[i] = StartChild(t, r.Child, r.args()...)
	}
	for _, ch := range children {
		ch.WaitLine(t, "ready", childStepTimeout)
	}
	for _, ch := range children {
		ch.Send(t, "go")
	}
	for _, ch := range children {
		ch.WaitLine(t, "done", r.Timeout)
		ch.Wait(t, childStepTimeout)
	}
	c := redis.NewClient(&redis.Options{Addr: r.Addrs[0]})
	defer c.Close()
	got, err := c.Get(Ctx(t, queryTimeout), r.countKey()).Int()
	if want := r.Procs * r.Goroutines * r.Rounds; err != nil || got != want {
		t.Fatalf("counter = %d, %v; want %d (lost updates mean two holders overlapped)", got, err, want)
	}
}

// OnNewServer runs r against a redis-server of its own, started for t,
// and a lock named after t (r's Addrs and Name are set here), then fails
// the test if the lock left a key behind.
func (r CountRun) OnNewServer(t testing.TB) {
	t.Helper()
	srv := StartServer(t)
	r.Addrs, r.Name = []string{srv.Addr()}, Unique(t)
	r.Run(t)
	AssertClean(t, srv.Client(t), r.Name)
}

// countKey and tokenKey are the counter and the latest fencing token. They
// do not carry the lock's hash tag, so they never count as keys the lock
// left behind.
func (r CountRun) countKey() string { return "count:" + r.Name }
func (r CountRun) tokenKey() string { return "token:" + r.Name }

// increment adds one to the counter with a separate read and write and,
// when fenced, swaps m's token in, checking that it grew.
func (r CountRun) increment(ctx context.Context, c redis.UniversalClient, m TokenLocker) error {
	n, err := c.Get(ctx, r.countKey()).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if r.Fenced {
		old, err := c.SetArgs(ctx, r.tokenKey(), m.Token(), redis.SetArgs{Get: true}).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		if prev, _ := strconv.ParseInt(old, 10, 64); prev >= m.Token() { // 0 for the first hold
			return fmt.Errorf("token %d after token %d", m.Token(), prev)
		}
	}
	return c.Set(ctx, r.countKey(), n+1, 0).Err()
}

// args encodes the run for the child: name, goroutines, rounds, fenced,
// timeout, then the addresses.
func (r CountRun) args() []string {
	return append([]string{r.Name, strconv.Itoa(r.Goroutines), strconv.Itoa(r.Rounds),
		strconv.FormatBool(r.Fenced), r.Timeout.String()}, r.Addrs...)
}

// parseCountArgs decodes what args encoded.
func parseCountArgs(args []string) (CountRun, error) {
	if len(args) < 6 {
		return CountRun{}, errors.New("want name, goroutines, rounds, fenced, timeout and addresses")
	}
	r := CountRun{Name: args[0], Addrs: args[5:]}
	var errs [4]error
	r.Goroutines, errs[0] = strconv.Atoi(args[1])
	r.Rounds, errs[1] = strconv.Atoi(args[2])
	r.Fenced, errs[2] = strconv.ParseBool(args[3])
	r.Timeout, errs[3] = time.ParseDuration(args[4])
	return r, errors.Join(errs[:]...)
}
