package election_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// proclaims reports whether cmd runs the script by which a new leader
// proclaims its value: a script whose arguments name the observers'
// channel but not the candidates' (which the scripts that free the
// leadership, and tell the observers, name too).
func proclaims(cmd redis.Cmder) bool {
	return redistest.IsScript(cmd) && hasArg(cmd, func(s string) bool { return strings.HasSuffix(s, ":observe") }) &&
		!hasArg(cmd, func(s string) bool { return strings.HasSuffix(s, ":ch") })
}

// hasArg reports whether one of cmd's string arguments satisfies ok.
func hasArg(cmd redis.Cmder, ok func(string) bool) bool {
	for _, a := range cmd.Args() {
		if s, _ := a.(string); ok(s) {
			return true
		}
	}
	return false
}

// TestCampaign_that_gives_back_a_proclaimed_leadership_tells_the_observers
// loses the reply of a proclamation that took effect: the observers heard
// of the new leader, and Campaign, which cannot know that, fails and gives
// the leadership back. With a lease far longer than the test, only a word
// from Campaign lets the observer see that nobody leads.
func TestCampaign_that_gives_back_a_proclaimed_leadership_tells_the_observers(t *testing.T) {
	late := lateProclamations()
	defer late.Off()
	s, rc, drop := droppedProclamation(t, late)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	obs := vacantObserver(ctx, t, s, name)
	e := election.New(redistest.Lockkit(t, rc), name, lockkit.WithWatchdogTimeout(5*time.Minute))
	loadScripts(ctx, t, redistest.Lockkit(t, rc), name)
	drop.Arm()
	redistest.WantErr(t, campaignHeardOf(ctx, t, e, obs, late, "a"), redistest.ErrReplyDropped)
	if got, err := e.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after the give-back = %+v, %v; want nobody", got, err)
	}
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
	l, err := e.Campaign(ctx, "b")
	if err != nil {
		t.Fatalf("Campaign after the failed one: %v", err)
	}
	_ = l.Resign(context.Background())
	redistest.AssertClean(t, rc, name)
}
