package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_waits_for_a_give_back_in_doubt_only_while_its_ctx_lasts
// loses the reply of a proclamation and holds up the give-back that
// follows, and every try to settle it, past the Campaign's deadline: the
// give-back is in doubt. The next Campaign of that candidate waits for it
// only while its own ctx lasts, returning by its deadline an error
// matching ErrNotObtained and DeadlineExceeded, and another candidate
// cannot lead meanwhile. Once the server answers, the give-back is
// settled: the next Campaign leads with a larger term, and its Resign
// leaves nothing behind.
func TestCampaign_waits_for_a_give_back_in_doubt_only_while_its_ctx_lasts(t *testing.T) {
	s, rc, proclaim := droppedProclamation(t)
	held := &redistest.Silence{Match: afterProclamation(proclaim), Max: 2 * redistest.Hang}
	defer held.Off()
	rc.AddHook(held)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	c := redistest.Lockkit(t, rc)
	loadScripts(ctx, t, c, name)
	e := election.New(c, name, long)

	proclaim.Arm()
	held.On()
	first, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := e.Campaign(first, "a")
	redistest.WantErr(t, err, redistest.ErrReplyDropped)
	if proclaim.Armed() || held.Held() == 0 {
		t.Fatalf("proclamation's reply lost %v, give-back held up %v; want both", !proclaim.Armed(), held.Held() > 0)
	}

	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	_, err = e.Campaign(short, "b")
	if took := time.Since(start); took > wait+time.Second {
		t.Errorf("Campaign with a give-back in doubt took %v past a deadline of %v", took, wait)
	}
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	other := election.New(redistest.Lockkit(t, s.Client(t)), name, long)
	taken, err := other.Leader(ctx)
	if taken.Term == 0 || err != nil {
		t.Fatalf("Leader while the give-back is in doubt = %+v, %v; want the leadership still taken", taken, err)
	}

	held.Off()
	l := mustCampaign(ctx, t, e, "c")
	if l.Leader().Value != "c" || l.Leader().Term <= taken.Term {
		t.Fatalf("leadership = %+v, want c with a term above %d", l.Leader(), taken.Term)
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := other.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after Resign = %+v, %v; want nobody", got, err)
	}
	redistest.AssertClean(t, s.Client(t), name)
}
