package reentrant_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLocalHandoff_a_busy_process_lets_another_in_once_it_kept_the_hold_for_maxHold:
// two Mutexes of one process lock and unlock without pause, each
// unlocking only once the other waits, so that every Unlock could hand the
// hold over, with a count bound too large to matter, while
// another process waits in Redis. The hand-overs do not restart the time
// bound: once the process has kept the hold for maxHold since it took it
// from Redis, it releases it there, and the other process gets the lock
// while the busy Mutexes still want it.
func TestLocalHandoff_a_busy_process_lets_another_in_once_it_kept_the_hold_for_maxHold(t *testing.T) {
	c, lcA, lcB, name := twoProcesses(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	const maxHold = 200 * time.Millisecond
	opt := reentrant.WithLocalHandoff(1<<30, maxHold)
	busy, stop := []*reentrant.Mutex{reentrant.New(lcA, name, opt), reentrant.New(lcA, name, opt)}, make(chan struct{})
	redistest.MustLock(t, busy[0])
	var wg sync.WaitGroup
	errs := make(chan error, len(busy))
	for i, m := range busy {
		wg.Go(func() {
			if i == 0 {
				waitPeer(m, stop)
				if err := m.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := m.Lock(ctx); err != nil {
					errs <- err
					return
				}
				waitPeer(m, stop)
				if err := m.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	b := reentrant.New(lcB, name, opt)
	start := time.Now()
	short, cancel := context.WithTimeout(ctx, 20*maxHold)
	defer cancel()
	err := b.Lock(short)
	waited := time.Since(start)
	close(stop)
	if err != nil {
		t.Fatalf("the other process's Lock while the busy process hands the hold over = %v after %v; want the lock within about maxHold (%v)", err, waited, maxHold)
	}
	t.Logf("the other process got the lock after %v", waited)
	redistest.MustUnlock(t, b)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	redistest.AssertClean(t, c, name)
}

// waitPeer returns once a Lock other than m's waits in memory for the
// lock m holds, or once stop is closed.
func waitPeer(m *reentrant.Mutex, stop <-chan struct{}) {
	for reentrant.LocalWaiters(m) == 0 {
		select {
		case <-stop:
			return
		default:
			runtime.Gosched()
		}
	}
}
