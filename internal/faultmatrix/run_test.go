package faultmatrix_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Bounds of the matrix. The lease is short so that faults longer than it
// are short too; the others are generous: reaching one means a hang.
const (
	lease      = time.Second
	lockBound  = 3 * lease        // the ctx of each Lock of a worker
	callBound  = 10 * time.Second // the ctx of each other call
	stuckSlack = 5 * time.Second  // how late past its ctx a call is stuck
	eventBound = 60 * time.Second // an awaited event
	workers    = 3                // owners per lock besides the victim
	// cohortWorkers are the workers per Client in cohort mode, where the
	// workers run on two Clients.
	cohortWorkers = 2
	roundsAfter   = 3 // holds each lock must see after a fault
	retryPause    = 20 * time.Millisecond
	freeBound     = 20 * time.Second // the lock to be free at the end
)

// run is one kind's lock in one cell: workers that lock, go through the
// checker and unlock in a loop, and a victim that holds the lock across
// the fault.
type run struct {
	k    kind
	name string
	chk  *checker

	holds    atomic.Int64 // holds the workers took
	stuck    atomic.Int64 // calls that returned well past their ctx
	faultAt  atomic.Int64 // unix ns of the fault, 0 before
	takeover atomic.Int64 // ns from the fault to the first hold after it
	holding  atomic.Int64 // workers holding the lock now
	detected atomic.Int64 // ns from the fault to the victim's lost signal
	// last is the token of the workers' last hold, and handoffs counts
	// the holds since the fault that had the token of the hold before
	// them: the same hold in Redis, handed over in memory (cohort mode).
	last     atomic.Int64
	handoffs atomic.Int64

	stop chan struct{}
	wg   sync.WaitGroup
}

// newRun returns the run of kind k, on a fresh lock name.
func newRun(t *testing.T, k kind, store redis.UniversalClient) *run {
	name := redistest.Unique(t)
	return &run{k: k, name: name, chk: newChecker(store, k, name), stop: make(chan struct{})}
}

// rename gives the run the lock called name, before it starts.
func (r *run) rename(name string) {
	r.name, r.chk = name, newChecker(r.chk.store, r.k, name)
}

// markFault records that the fault happens now.
func (r *run) markFault() { r.faultAt.Store(time.Now().UnixNano()) }

// since returns the ns since the fault.
func (r *run) since() int64 { return time.Now().UnixNano() - r.faultAt.Load() }

// stopping reports whether the run is being stopped.
func (r *run) stopping() bool { return redistest.Closed(r.stop) }

// pause waits between attempts after an error, or until the stop.
func (r *run) pause() {
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-r.stop:
	case <-t.C:
	}
}

// timed runs call with a ctx that ends after d, and counts it stuck if it
// returns more than stuckSlack after that.
func (r *run) timed(parent context.Context, d time.Duration, call func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	deadline, _ := ctx.Deadline()
	err := call(ctx)
	if time.Since(deadline) > stuckSlack {
		r.stuck.Add(1)
	}
	return err
}

// startWorkers starts the workers, owners 1 to workers on lc. In cohort
// mode they are spread over lc and a second Client of lc's server, closed
// in t.Cleanup, cohortWorkers on each: two processes, each with several
// owners.
func (r *run) startWorkers(t *testing.T, lc *lockkit.Client) {
	clients, n := []*lockkit.Client{lc}, workers
	if r.k.cohort {
		clients, n = append(clients, redistest.Lockkit(t, lc.Redis(), lockOptions()...)), cohortWorkers
	}
	for j, c := range clients {
		for i := 1; i <= n; i++ {
			o := r.k.owner(c, r.name, j*n+i)
			r.wg.Go(func() { r.work(o, nil) })
		}
	}
}

// startCompanion starts, in cohort mode, a worker on the victim's Client
// vlc, which waits in memory while the victim holds the lock.
func (r *run) startCompanion(vlc *lockkit.Client) {
	if !r.k.cohort {
		return
	}
	o := r.k.owner(vlc, r.name, 2*cohortWorkers+1)
	r.wg.Go(func() { r.work(o, nil) })
}

// work locks, goes through the checker and unlocks until the stop. With
// cancel, each Lock's ctx is also cancelled by cancel's timer.
func (r *run) work(o owner, cancelAfter func() time.Duration) {
	for !r.stopping() {
		err := r.timed(context.Background(), lockBound, func(ctx context.Context) error {
			if cancelAfter != nil {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				stop := time.AfterFunc(cancelAfter(), cancel) // the storm
				defer stop.Stop()
			}
			return o.Lock(ctx)
		})
		if err != nil {
			if cancelAfter == nil {
				r.pause()
			}
			continue
		}
		// The lock is taken over once the workers hold every permit of
		// it: a semaphore's other permits are free across the fault.
		if n := r.holding.Add(1); r.faultAt.Load() != 0 && n >= int64(max(1, r.k.permits)) {
			r.takeover.CompareAndSwap(0, r.since())
		}
		r.holds.Add(1)
		if tok := o.tokens()[0]; r.last.Swap(tok) == tok && tok != 0 && r.faultAt.Load() != 0 {
			r.handoffs.Add(1)
		}
		ctx, cancel := context.WithTimeout(context.Background(), callBound)
		r.chk.begin(ctx, o).finish(ctx)
		cancel()
		r.holding.Add(-1)
		r.unlock(o)
	}
}

// unlock releases o's hold, calling Unlock again after a failure (which
// its documentation allows) until it succeeds or reports the hold gone.
func (r *run) unlock(o owner) {
	deadline := time.Now().Add(eventBound)
	for {
		err := r.timed(context.Background(), callBound, o.Unlock)
		if err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) || time.Now().After(deadline) {
			return
		}
		time.Sleep(retryPause) // pacing the retries of a failed Unlock
	}
}

// awaitHolds waits until the workers have taken n more holds than now.
func (r *run) awaitHolds(t *testing.T, n int64) {
	t.Helper()
	want := r.holds.Load() + n
	redistest.Eventually(t, eventBound, r.k.name+": holds after the fault", func() bool {
		return r.holds.Load() >= want
	})
}

// awaitTakeover waits until the workers took the lock over after the
// fault.
func (r *run) awaitTakeover(t *testing.T) {
	t.Helper()
	redistest.Eventually(t, eventBound, r.k.name+": the takeover", func() bool {
		return r.takeover.Load() != 0
	})
}

// awaitHandoffs waits, in cohort mode, until the workers have handed the
// lock over in memory since the fault.
func (r *run) awaitHandoffs(t *testing.T) {
	t.Helper()
	if !r.k.cohort {
		return
	}
	redistest.Eventually(t, eventBound, r.k.name+": a hand-over after the fault", func() bool {
		return r.handoffs.Load() > 0
	})
}

// finish stops the workers and waits for them.
func (r *run) finish(t *testing.T) {
	t.Helper()
	close(r.stop)
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	redistest.Receive(t, done, lockBound+callBound+stuckSlack, r.k.name+": the workers to stop")
}

// free reports whether the lock is free once every owner has stopped: a
// fresh owner takes it within freeBound (a fair lock's waiters that could
// not leave the queue leave it after their waiter timeout).
func (r *run) free(t *testing.T, lc *lockkit.Client) bool {
	t.Helper()
	o := r.k.owner(lc, r.name, 1)
	deadline := time.Now().Add(freeBound)
	for {
		ok, err := o.TryLock(redistest.Ctx(t, callBound))
		if ok {
			r.unlock(o)
			return true
		}
		if time.Now().After(deadline) {
			t.Logf("%s: the lock is not free at the end: %v", r.k.name, err)
			return false
		}
		time.Sleep(retryPause) // polling the lock's state
	}
}
