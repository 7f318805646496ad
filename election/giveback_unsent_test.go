package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_whose_give_back_never_left_gives_the_leadership_back_later
// loses the reply of a proclamation, and the give-back that follows
// never reaches the server: Campaign fails saying so, and the candidate,
// which never campaigns again, gives the leadership back in the
// background. With a lease far longer than the test, only that lets the
// observer, which heard of the proclaimed leader, see that nobody leads,
// and another candidate lead.
func TestCampaign_whose_give_back_never_left_gives_the_leadership_back_later(t *testing.T) {
	s, rc, proclaim := droppedProclamation(t)
	giveBack := &redistest.RefuseSend{Match: afterProclamation(proclaim)}
	rc.AddHook(giveBack)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	loadScripts(ctx, t, redistest.Lockkit(t, rc), name)
	obs := vacantObserver(ctx, t, s, name)
	proclaim.Arm()
	giveBack.Arm()
	_, err := election.New(redistest.Lockkit(t, rc), name, long).Campaign(ctx, "a")
	redistest.WantErr(t, err, redistest.ErrReplyDropped, redistest.ErrNotSent)
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
	b := redistest.Receive(t, campaignAsync(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, long), "b"), redistest.Hang, "b to lead")
	if b == nil {
		t.FailNow()
	}
	resignsClean(ctx, t, b, rc, name)
}
