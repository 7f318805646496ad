package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_after_a_failed_give_back_settles_it_and_Resign_frees_the_leadership loses
// the reply of a proclamation, then that of the give-back that follows
// (both took effect): Campaign's error reports both; the give-back in
// doubt is settled in the background, and the candidate campaigns again
// and leads with a larger term, as Leader reports; its Resign then frees
// that leadership, not only the give-back in doubt.
func TestCampaign_after_a_failed_give_back_settles_it_and_Resign_frees_the_leadership(t *testing.T) {
	s, rc, proclaim := droppedProclamation(t)
	giveBack := &redistest.DropReply{Match: afterProclamation(proclaim)}
	rc.AddHook(giveBack)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(redistest.Lockkit(t, rc), name, lockkit.WithWatchdogTimeout(5*time.Minute))
	warm := mustCampaign(ctx, t, e, "warm") // load the scripts
	if err := warm.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	proclaim.Arm()
	giveBack.Arm()
	_, err := e.Campaign(ctx, "a")
	redistest.WantErr(t, err, redistest.ErrReplyDropped)
	if proclaim.Armed() || giveBack.Armed() {
		t.Fatalf("replies lost: proclamation %v, give-back %v; want both", !proclaim.Armed(), !giveBack.Armed())
	}
	l, err := e.Campaign(ctx, "b")
	if err != nil {
		t.Fatalf("Campaign after the failed give-back: %v", err)
	}
	if l.Leader().Term <= warm.Leader().Term {
		t.Fatalf("term %d after %d", l.Leader().Term, warm.Leader().Term)
	}
	if got, err := election.New(redistest.Lockkit(t, s.Client(t)), name).Leader(ctx); got != l.Leader() || err != nil {
		t.Fatalf("Leader = %+v, %v; want %+v", got, err, l.Leader())
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := election.New(redistest.Lockkit(t, s.Client(t)), name).Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after Resign = %+v, %v; want nobody", got, err)
	}
	redistest.AssertClean(t, rc, name)
}
