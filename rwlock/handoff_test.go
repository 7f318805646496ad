package rwlock_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// readHold is how long each read of the short-read loads lasts.
const readHold = 5 * time.Millisecond

// shortReadBound is the longest a writer with writer preference may wait
// in Lock behind readers whose holds last readHold: it waits for the reads
// in progress only. It is generous; losing the lock to the readers again
// and again made writers wait for seconds.
const shortReadBound = 500 * time.Millisecond

// readLoadChild runs args[2] readers of lock args[1], each its own owner
// with writer preference args[3], that loop taking the read lock for
// readHold and releasing it. It prints "reading" once every reader has
// read, and stops, releasing what it holds, when its stdin closes.
func readLoadChild(args []string) {
	n, _ := strconv.Atoi(args[2])
	prefer, _ := strconv.ParseBool(args[3])
	lc, _, done := redistest.ChildLockkit(args[0], rwlock.WithWriterPreference(prefer))
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	var wg, first sync.WaitGroup
	first.Add(n)
	for i := range n {
		m := rwlock.New(lc, args[1])
		wg.Go(func() {
			for j := 0; ctx.Err() == nil; j++ {
				if err := m.RLock(ctx); err != nil {
					if ctx.Err() == nil {
						redistest.ChildFatalf("reader %d: RLock: %v", i, err)
					}
					return
				}
				time.Sleep(readHold)
				if err := m.RUnlock(context.Background()); err != nil {
					redistest.ChildFatalf("reader %d: RUnlock: %v", i, err)
				}
				if j == 0 {
					first.Done()
				}
			}
		})
	}
	first.Wait()
	redistest.ChildPrintf("reading")
	for range redistest.ChildLines() {
	}
	cancel()
	wg.Wait()
}

// A writer is not kept waiting by short reads that keep coming, from this
// process and another. Woken by the read release that freed the lock, a
// writer used to arrive after the reader that freed it had taken it again,
// and so lost the lock to the readers for seconds (without writer
// preference, where nothing else holds readers back). Now the freed lock
// is handed off to it: Lock takes at most three tries (before and after
// subscribing, and once woken), whatever the readers do. With preference
// the writer waits only for the reads in progress, so its wait is also
// bounded in time; without it, how soon the readers first leave the lock
// free is up to them: readers whose holds overlap may never do (see
// TestLock_without_writer_preference_waits_for_readers_to_stop), so that
// variant runs one reader, which frees the lock at the end of every read
// and locks again at once.
func TestLock_takes_the_lock_the_last_short_read_frees(t *testing.T) {
	for _, prefer := range []bool{true, false} {
		t.Run(fmt.Sprintf("preference=%v", prefer), func(t *testing.T) {
			t.Parallel()
			rc := redistest.StartServer(t).Client(t)
			opt := rwlock.WithWriterPreference(prefer)
			c := redistest.Lockkit(t, rc, opt)
			name := redistest.Unique(t)
			// Readers in another process, and in this one.
			remote, local := 2, 3
			if !prefer {
				remote, local = 0, 1
			}
			readers := redistest.StartChild(t, "rw-read-load", redistest.ClientSpec(rc), name, strconv.Itoa(remote), strconv.FormatBool(prefer))
			readers.WaitLine(t, "reading", childTimeout)
			t.Cleanup(func() {
				readers.CloseStdin(t)
				readers.Wait(t, childTimeout)
			})
			load := startReadLoad(t, c, name, local, readHold, opt)
			// The writer has a Client of its own, as in a process of its
			// own, whose scripts are counted.
			wc, counter := counted(t, rc)
			w := rwlock.New(wc, name, opt)
			load.steady(w, 3)

			const rounds = 20
			waits := make([]time.Duration, 0, rounds)
			for round := range rounds {
				before := counter.Scripts()
				start := time.Now()
				redistest.MustLock(t, w)
				waits = append(waits, time.Since(start))
				tries := counter.Scripts() - before
				redistest.MustUnlock(t, w)
				if tries > 3 {
					t.Errorf("round %d: Lock took %d tries (in %v), want at most 3: the lock a read release freed went to a reader", round, tries, waits[round])
				}
				if prefer && waits[round] > shortReadBound {
					t.Errorf("round %d: writer waited %v behind %v reads, want within %v", round, waits[round], readHold, shortReadBound)
				}
				load.steady(w, slices.Max(load.snapshot())+1) // readers resume between writes
			}
			slices.Sort(waits)
			t.Logf("writer waits over %d rounds: median %v, max %v", rounds, waits[rounds/2], waits[rounds-1])
		})
	}
}
