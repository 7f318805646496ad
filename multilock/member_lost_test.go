package multilock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_after_a_member_s_hold_was_lost_returns_ErrLost_and_releases_the_other:
// m holds a fair lock and a reentrant lock; the hold of one of them (each
// in turn) vanishes from Redis while m holds it. That member's watchdog
// finds it gone, so its lost signal closes while the other's stays open,
// and another owner can take it. m's Unlock returns ErrLost (and no
// ErrNotHeld: the other member was released), nothing is left in Redis,
// and the next Unlock finds nothing held. m can then be locked again.
func TestUnlock_after_a_member_s_hold_was_lost_returns_ErrLost_and_releases_the_other(t *testing.T) {
	for _, lost := range []string{"fair", "reentrant"} {
		t.Run(lost, func(t *testing.T) {
			ctx := redistest.Ctx(t, redistest.Hang)
			s, c, u := redistest.OnServer(t)
			rc := s.Client(t)
			// Renewed every 200 ms, so that the loss is found at once.
			short := lockkit.WithWatchdogTimeout(600 * time.Millisecond)
			names := map[string]string{"fair": "f-" + u, "reentrant": "r-" + u}
			f, re := fair.New(c, names["fair"], short), reentrant.New(c, names["reentrant"], short)
			members := map[string]interface {
				lockkit.Locker
				Lost() <-chan struct{}
			}{"fair": f, "reentrant": re}
			kept := map[string]string{"fair": "reentrant", "reentrant": "fair"}[lost]
			m := multilock.New([]lockkit.Locker{f, re})
			redistest.MustLock(t, m)

			if err := rc.Del(ctx, lockKey(names[lost])).Err(); err != nil {
				t.Fatal(err)
			}
			redistest.Receive(t, members[lost].Lost(), redistest.Hang, "the lost signal of the member whose hold vanished")
			if redistest.Closed(members[kept].Lost()) {
				t.Fatalf("the lost signal of the %s member, still held, closed", kept)
			}
			other := map[string]lockkit.Locker{"fair": fair.New(c, names["fair"]), "reentrant": reentrant.New(c, names["reentrant"])}
			if ok, err := other[lost].TryLock(ctx); !ok || err != nil {
				t.Fatalf("TryLock of the lost %s member by another owner = %v, %v; want true", lost, ok, err)
			}
			if ok, err := other[kept].TryLock(ctx); ok || err != nil {
				t.Fatalf("TryLock of the %s member m still holds, by another owner = %v, %v; want false, nil", kept, ok, err)
			}
			redistest.MustUnlock(t, other[lost])

			err := m.Unlock(ctx)
			redistest.WantErr(t, err, lockkit.ErrLost)
			if errors.Is(err, lockkit.ErrNotHeld) {
				t.Fatalf("Unlock with the %s member's hold lost = %v; want the %s member released", lost, err, kept)
			}
			for _, n := range names {
				redistest.AssertClean(t, rc, n)
			}
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
			for _, n := range names {
				redistest.AssertClean(t, rc, n)
			}
		})
	}
}
