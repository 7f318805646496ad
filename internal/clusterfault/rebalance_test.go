package clusterfault_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// ownersPerLock is how many owners lock and unlock each lock of the
// rebalance test, each from a Client of its own.
const ownersPerLock = 3

// TestRebalance_to_an_added_master_under_load_keeps_exclusion_and_fails_no_call
// has owners of every kind lock and unlock their lock in a loop, each
// kind its own lock, while a master joins the cluster and the slot of
// every lock (a multi-lock's first member) moves to it, one after the
// other. No lock ever has more holders than it admits (one, or a
// semaphore's permits), no hold is reported lost, and a call fails only
// with what the docs allow while a slot moves: a Lock or TryLock that had
// not begun to wait, or an Unlock, gets the TRYAGAIN, ASK or MOVED its
// script was answered with (transient: the lock is not taken, or still
// held, and the Unlock is tried again). Every owner takes its lock again
// once the slots have moved, and nothing is left.
func TestRebalance_to_an_added_master_under_load_keeps_exclusion_and_fails_no_call(t *testing.T) {
	cl := redistest.StartCluster(t)
	cc := cl.Client(t)
	var clients []*lockkit.Client
	for range ownersPerLock {
		clients = append(clients, redistest.Lockkit(t, cl.Client(t)))
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var (
		wg    sync.WaitGroup
		loads []*load
	)
	for _, k := range kinds() {
		l := &load{k: k, name: drawName(t, k, cc, ""), admits: 1}
		if k.shared {
			l.admits = semPermits
		}
		for _, c := range clients {
			o := k.waiter(c, l.name)
			wg.Go(func() { l.run(ctx, o) })
		}
		loads = append(loads, l)
	}
	for _, l := range loads {
		l.progressed(t, "before the rebalance")
	}

	added := cl.AddMaster(t)
	for _, l := range loads {
		cl.MoveSlot(t, lockKey(l.k.members(l.name)[0]), added)
	}
	for _, l := range loads {
		l.progressed(t, "after the rebalance")
	}
	stop()
	wg.Wait()
	for _, l := range loads {
		if err := l.failure(); err != nil {
			t.Errorf("%s: %v", l.k.name, err)
		}
		t.Logf("%s: %d holds, %d calls refused while a slot moved", l.k.name, l.holds.Load(), l.refused.Load())
		for _, n := range l.k.members(l.name) {
			redistest.AssertCleanWithin(t, cc, n, time.Second)
		}
	}
}

// load is one lock locked and unlocked in a loop by several owners.
type load struct {
	k       kind
	name    string
	admits  int64        // how many owners may hold it at once
	inside  atomic.Int64 // owners holding it now
	holds   atomic.Int64 // holds taken so far
	refused atomic.Int64 // calls that failed with a transient error
	mu      sync.Mutex
	err     error // the first failure
}

// run locks and unlocks l with owner o until ctx ends. Each hold is
// counted against the lock's other holders while it does its work; a
// Lock refused with a transient error is tried again, and so is an
// Unlock until it frees the lock.
func (l *load) run(ctx context.Context, o lockkit.Locker) {
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, callTimeout)
		err := o.Lock(lctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				l.refusal("Lock", err)
			}
			continue
		}
		if n := l.inside.Add(1); n > l.admits {
			l.fail(fmt.Errorf("%d holders at once, %d admitted", n, l.admits))
		}
		l.holds.Add(1)
		lost := redistest.LostSignals(o)
		time.Sleep(time.Millisecond) // the hold's work
		if redistest.AnyClosed(lost) {
			l.fail(errors.New("a hold was reported lost"))
		}
		l.inside.Add(-1)
		l.unlock(o)
	}
}

// unlock calls o's Unlock until it frees the lock, or fails with an error
// that is not transient. A multi-lock's retry reports ErrNotHeld for the
// members the call before it released.
func (l *load) unlock(o lockkit.Locker) {
	for retried := false; ; retried = true {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		err := o.Unlock(ctx)
		cancel()
		if _, multi := o.(*multilock.Mutex); multi && retried && errors.Is(err, lockkit.ErrNotHeld) {
			err = nil
		}
		if err == nil || !l.refusal("Unlock", err) {
			return
		}
	}
}

// refusal counts err, the error of call op, as a refusal while a slot
// moves if it is transient (see core.Transient), and else records it as
// the load's failure; it reports whether err was transient.
func (l *load) refusal(op string, err error) bool {
	if core.Transient(err) {
		l.refused.Add(1)
		return true
	}
	l.fail(fmt.Errorf("%s: %w", op, err))
	return false
}

// fail records err unless the load failed already.
func (l *load) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

// failure returns the load's first failure, or nil.
func (l *load) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// progressed waits until the lock was taken twice more than when called,
// and fails the test if that takes longer than waitBound; when says at
// which point of the test.
func (l *load) progressed(t *testing.T, when string) {
	t.Helper()
	from := l.holds.Load()
	redistest.Eventually(t, waitBound, fmt.Sprintf("%s: two more holds %s", l.k.name, when), func() bool {
		return l.holds.Load() >= from+2
	})
}
