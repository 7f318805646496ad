package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_whose_give_back_reply_is_lost_tells_the_observers_though_the_Client_closes
// loses the replies of a proclamation the observer heard of and of the
// give-back that follows (both took effect), and closes the candidate's
// Client as soon as Campaign fails, before it could settle the give-back
// in the background: the observer, whose leader had a lease far longer
// than the test, still sees at once that nobody leads.
func TestCampaign_whose_give_back_reply_is_lost_tells_the_observers_though_the_Client_closes(t *testing.T) {
	late := lateProclamations()
	defer late.Off()
	s, rc, proclaim := droppedProclamation(t, late)
	giveBack := &redistest.DropReply{Match: afterProclamation(proclaim)}
	rc.AddHook(giveBack)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	e := election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute))
	loadScripts(ctx, t, c, name)
	obs := vacantObserver(ctx, t, s, name)

	proclaim.Arm()
	giveBack.Arm()
	redistest.WantErr(t, campaignHeardOf(ctx, t, e, obs, late, "a"), redistest.ErrReplyDropped)
	if proclaim.Armed() || giveBack.Armed() {
		t.Fatalf("replies lost: proclamation %v, give-back %v; want both", !proclaim.Armed(), !giveBack.Armed())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	vacancyWithin(t, obs, 5*time.Second)
	redistest.AssertClean(t, s.Client(t), name)
}
