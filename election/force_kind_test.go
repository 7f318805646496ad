package election_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestElection_ForceUnlock_of_another_kinds_name_is_ErrWrongKind_and_changes_nothing
// force-unlocks the election of a name a reentrant lock holds: the error
// matches ErrWrongKind, and the lock stays held by its owner.
func TestElection_ForceUnlock_of_another_kinds_name_is_ErrWrongKind_and_changes_nothing(t *testing.T) {
	_, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	m := reentrant.New(c, name)
	redistest.MustLock(t, m)
	freed, err := election.New(c, name).ForceUnlock(ctx)
	redistest.WantErr(t, err, lockkit.ErrWrongKind)
	if freed {
		t.Error("ForceUnlock of a lock's name reported a leadership freed")
	}
	redistest.WantHoldCount(t, m, 1)
	if redistest.Closed(m.Lost()) {
		t.Error("the lock's hold was reported lost")
	}
	redistest.MustUnlock(t, m)
}

// TestElection_ForceUnlock_with_invalid_arguments_returns_ErrInvalid: like
// every other method, ForceUnlock of an Election New refused, or with a
// nil ctx, returns an error matching ErrInvalid.
func TestElection_ForceUnlock_with_invalid_arguments_returns_ErrInvalid(t *testing.T) {
	c, _ := redistest.Silent(t)
	redistest.EachInvalid(t, redistest.Invalids(c, election.New, nil), func(t *testing.T, e *election.Election, want string) {
		_, err := e.ForceUnlock(t.Context())
		redistest.WantInvalid(t, "ForceUnlock", err, want)
	})
	//lint:ignore SA1012 a nil ctx is the bad input checked
	_, err := election.New(c, "x").ForceUnlock(nil)
	redistest.WantInvalid(t, "ForceUnlock(nil)", err, "nil context")
}
