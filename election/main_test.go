package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{"candidate": candidateChild})
}

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 30 * time.Second

// nextLeader returns the next value on ch, and
// fails the test if ch closes or nothing comes in time.
func nextLeader(t *testing.T, ch <-chan election.Leader, what string) election.Leader {
	t.Helper()
	timer := time.NewTimer(hang)
	defer timer.Stop()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatalf("observer closed waiting for %s", what)
		}
		return l
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", hang, what)
		panic("unreachable")
	}
}

// observeUntil reads ch until a leader for which ok reports true, and
// returns it.
func observeUntil(t *testing.T, ch <-chan election.Leader, what string, ok func(election.Leader) bool) election.Leader {
	t.Helper()
	for {
		if l := nextLeader(t, ch, what); ok(l) {
			return l
		}
	}
}
