package reentrant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_a_woken_process_that_never_comes_holds_up_the_next_no_longer_than_the_handoff
// checks that when the process a release wakes cannot take its turn (it is
// cut off from the server, whose end of its connection stays open, so the
// wake-up counts it as listening), the process next in line takes the
// lock once the 100 ms the lock is kept for the woken one have passed,
// not when the released holder's lease would have ended; and so it does
// behind three such processes in a row, which the release tells when to
// try after the woken one as it tells it.
func TestUnlock_a_woken_process_that_never_comes_holds_up_the_next_no_longer_than_the_handoff(t *testing.T) {
	const lease = 10 * time.Second // the wait the next in line had without the hand-off's bound
	for _, cuts := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d_cut_off", cuts), func(t *testing.T) {
			srv := redistest.StartServer(t)
			proxy := redistest.StartProxy(t, srv.Addr())
			name := redistest.Unique(t)
			opt := lockkit.WithWatchdogTimeout(lease)
			holder := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name, opt)
			redistest.MustLock(t, holder)

			// First in line: processes whose network is cut once they sleep.
			ctx, cancel := context.WithCancel(context.Background())
			cutDone := make(chan error, cuts)
			var cut []*reentrant.Mutex
			for range cuts {
				cutOff := redistest.Lockkit(t, proxy.Client(t))
				m := reentrant.New(cutOff, name, opt)
				cut = append(cut, m)
				go func() { cutDone <- m.Lock(ctx) }()
				waitAsleep(t, cutOff, name, 1)
			}

			// Next in line.
			next := redistest.Lockkit(t, srv.Client(t))
			nextDone := make(chan error, 1)
			m := reentrant.New(next, name, opt)
			go func() { nextDone <- m.Lock(redistest.Ctx(t, 2*lease)) }()
			waitAsleep(t, next, name, 1)

			proxy.Cut()
			released := time.Now()
			redistest.MustUnlock(t, holder)
			if err := redistest.Receive(t, nextDone, lease, "the next in line's Lock"); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(released); took > lease/3 {
				t.Errorf("the next in line took the lock %v after the release; want about %d × 100 ms, well before the %v lease",
					took, cuts, lease)
			}
			redistest.MustUnlock(t, m)

			proxy.Heal()
			cancel()
			for range cut {
				<-cutDone
			}
			for _, c := range cut {
				// One of them may have got the lock after all.
				_ = c.Unlock(redistest.Ctx(t, lease))
			}
		})
	}
}
