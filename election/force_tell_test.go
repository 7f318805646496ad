package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElection_ForceUnlock_that_cannot_tell_the_observers_reports_freed_and_the_error
// holds up the word to the observers that follows a force unlock: the
// leadership is freed, and ForceUnlock returns by its deadline with true
// and an error matching the ctx's; a candidate may lead at once.
func TestElection_ForceUnlock_that_cannot_tell_the_observers_reports_freed_and_the_error(t *testing.T) {
	s, rc, silent := silentServer(t, tellsObservers)
	defer silent.Off()
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	a := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, long), "a")

	silent.On()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	freed, err := election.New(redistest.Lockkit(t, rc), name).ForceUnlock(short)
	took := time.Since(start)
	if !freed {
		t.Errorf("ForceUnlock = false, %v; want true", err)
	}
	redistest.WantErr(t, err, context.DeadlineExceeded)
	// Loose, against a loaded machine: the word was waited for past the
	// deadline, on a detached context.
	if took >= time.Second {
		t.Errorf("ForceUnlock took %v past a 300 ms deadline", took)
	}
	if silent.Held() == 0 {
		t.Error("the word to the observers was not held up")
	}
	silent.Off()
	if got, err := election.New(redistest.Lockkit(t, s.Client(t)), name).Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after ForceUnlock = %+v, %v; want nobody", got, err)
	}
	b := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, long), "b")
	if b.Leader().Term <= a.Leader().Term {
		t.Fatalf("term %d after %d", b.Leader().Term, a.Leader().Term)
	}
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
