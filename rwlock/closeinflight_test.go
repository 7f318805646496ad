package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// TestClose_gives_back_what_an_acquire_on_its_way_took checks, for each
// side, that a Lock or RLock whose acquire the server had not answered
// when the Client closed, and which took the lock, returns ErrClosed and
// gives back what it took: the RWMutex holds nothing, its release reports
// ErrClosed, and Redis keeps nothing of the lock. The acquire is the
// first try at a free lock, or the try of a waiter woken by the release
// of a holder on another Client.
func TestClose_gives_back_what_an_acquire_on_its_way_took(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, tc := range []struct {
		name string
		// woken: the call waits behind a holder on another Client, whose
		// release wakes it, instead of finding the lock free.
		woken, write bool
	}{
		{"RLock of a free lock", false, false},
		{"Lock of a free lock", false, true},
		{"RLock woken by the writer's Unlock", true, false},
		{"Lock woken by the last reader's RUnlock", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := srv.Client(t)
			silent := &redistest.Silence{Match: isScript, Max: time.Minute}
			t.Cleanup(silent.Off)
			rc.AddHook(silent)
			lc, name := redistest.Lockkit(t, rc), redistest.Unique(t)
			m := rwlock.New(lc, name)
			call, release, token := m.RLock, m.RUnlock, m.RToken
			if tc.write {
				call, release, token = m.Lock, m.Unlock, m.Token
			}
			ctx := redistest.Ctx(t, spanTimeout)
			var got <-chan error
			if tc.woken {
				holders := redistest.Lockkit(t, srv.Client(t))
				h := rwlock.New(holders, name)
				hold, unhold, sleepsOn := h.Lock, h.Unlock, channel(lc, name, "ch")
				if tc.write {
					hold, unhold, sleepsOn = h.RLock, h.RUnlock, writersChannel(lc, name)
				}
				must(t, h, "hold", hold)
				got = async(t, func() error { return call(ctx) })
				redistest.Eventually(t, waitTimeout, "the call to wait", func() bool { return lc.Notifier().Sleeping(sleepsOn) == 1 })
				silent.On()
				must(t, h, "release", unhold)
			} else {
				silent.On()
				got = async(t, func() error { return call(ctx) })
			}
			redistest.Eventually(t, waitTimeout, "the acquire to be held up", func() bool { return silent.Held() > 0 })
			closed := async(t, lc.Close)
			redistest.Receive(t, lc.Done(), waitTimeout, "Close to begin")
			silent.Off() // the acquire runs now, and takes the lock
			redistest.WantErr(t, redistest.Receive(t, got, waitTimeout, tc.name), lockkit.ErrClosed)
			if err := redistest.Receive(t, closed, waitTimeout, "Close"); err != nil {
				t.Fatal(err)
			}
			if token() != 0 {
				t.Errorf("token after a call that failed = %d, want 0", token())
			}
			// Given back before the call returned: nothing to wait for.
			if s := state(t, rwlock.New(redistest.Lockkit(t, srv.Client(t)), name)); s.Mode != rwlock.Unlocked || s.WaitingWriters != 0 {
				t.Fatalf("state after the call returned = %+v; want the lock free, no intent", s)
			}
			redistest.WantErr(t, release(context.Background()), lockkit.ErrClosed)
			redistest.AssertClean(t, srv.Client(t), name)
		})
	}
}
