package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestNew_with_a_member_given_invalid_arguments_sends_nothing: a Mutex
// over a valid lock, held by another owner, and a member that was itself
// given invalid arguments (an empty name, no Client, the zero value) is
// invalid as a whole: each of its methods returns ErrInvalid before it
// sends anything. ForceUnlock used to free the valid member first, taking
// the lock from its owner, and the queries asked it.
func TestNew_with_a_member_given_invalid_arguments_sends_nothing(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	lc := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, 30*time.Second)
	for _, tc := range []struct {
		name string
		bad  lockkit.Locker
	}{
		{"empty_name", reentrant.New(lc, "")},
		{"no_Client", reentrant.New(nil, "x")},
		{"zero_value", &reentrant.Mutex{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := redistest.Unique(t)
			owner := reentrant.New(lc, name)
			redistest.MustLock(t, owner)
			defer redistest.MustUnlock(t, owner)
			m := multilock.New([]lockkit.Locker{reentrant.New(lc, name), tc.bad})
			sent := redistest.CountCommands(rc)
			calls := map[string]error{"Lock": m.Lock(ctx), "Unlock": m.Unlock(ctx)}
			_, calls["TryLock"] = m.TryLock(ctx)
			_, calls["ForceUnlock"] = m.ForceUnlock(ctx)
			_, calls["IsLocked"] = m.IsLocked(ctx)
			_, calls["HoldCount"] = m.HoldCount(ctx)
			_, calls["TTL"] = m.TTL(ctx)
			for call, err := range calls {
				redistest.WantErr(t, err, lockkit.ErrInvalid)
				if t.Failed() {
					t.Fatalf("%s = %v", call, err)
				}
			}
			if n := sent.Total(); n != 0 {
				t.Errorf("the calls sent %d commands; want none", n)
			}
			redistest.WantHoldCount(t, owner, 1)
		})
	}
}
