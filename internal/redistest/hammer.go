package redistest

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrOverlap is the error [Hammer] returns when two of its lockers held
// their locks at the same time.
var ErrOverlap = errors.New("redistest: two holders inside the critical section at once")

// Hammer checks mutual exclusion within one process: it runs a goroutine
// per locker that takes its lock rounds times, and at every hold checks
// that no other goroutine is inside the critical section. It returns once
// every goroutine has stopped, with the number of holds taken in all and
// the first error: a failed Lock or Unlock, or [ErrOverlap]. A goroutine
// stops at its first error, releasing what it holds. ctx bounds every Lock
// and Unlock. [CountRun] does the same across processes.
func Hammer(ctx context.Context, lockers []Locker, rounds int) (holds int, err error) {
	var (
		// Atomics, because the race detector cannot see the ordering
		// that a lock establishes through Redis.
		inside atomic.Int32
		total  atomic.Int64
		wg     sync.WaitGroup
	)
	errs := make(chan error, len(lockers))
	for _, l := range lockers {
		wg.Go(func() {
			for range rounds {
				if err := l.Lock(ctx); err != nil {
					errs <- err
					return
				}
				overlap := inside.Add(1) != 1
				total.Add(1)
				runtime.Gosched() // give another holder the chance to show up
				inside.Add(-1)
				err := l.Unlock(ctx)
				if overlap {
					err = ErrOverlap
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return int(total.Load()), <-errs
}
