package reentrant_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestWithOwner_Lock_after_a_restart_from_older_data_reenters_the_restored_hold
// saves a hold of an owner id that values share (WithOwner), releases
// it, and has another owner take and release the lock, then restarts the
// server from the saved data: the hold is back. A new value of the owner
// id re-enters it, as it would any hold of its owner, with its token, a
// token older than the other owner's: values that share an owner id are
// one owner, and none of them can tell a restored hold from one another
// value holds.
func TestWithOwner_Lock_after_a_restart_from_older_data_reenters_the_restored_hold(t *testing.T) {
	for _, p := range []redistest.Persistence{redistest.RDB, redistest.AOF} {
		t.Run(p.String(), func(t *testing.T) {
			s := redistest.StartPersistent(t, 1, p)[0]
			c := redistest.Lockkit(t, s.Client(t))
			name := redistest.Unique(t)
			m1 := reentrant.New(c, name, lockkit.WithOwner("job-1"))
			redistest.MustLock(t, m1)
			saved := m1.Token()
			snap := s.Snapshot(t)
			redistest.MustUnlock(t, m1)
			other := reentrant.New(c, name)
			redistest.MustLock(t, other)
			later := other.Token()
			redistest.MustUnlock(t, other)

			s.RestartFrom(t, snap)
			m2 := reentrant.New(c, name, lockkit.WithOwner("job-1"))
			redistest.MustLock(t, m2)
			if got := m2.Token(); got != saved || got >= later {
				t.Errorf("token of the re-entered hold = %d; want the saved %d, below the later %d", got, saved, later)
			}
			redistest.MustUnlock(t, m2)
		})
	}
}
