package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// closeWhileHeld closes c while held holds up a command of a Campaign
// whose error arrives on campaign: it waits until the command is held
// up, starts Close, lets the command through once c is closed, and
// returns the Campaign's error once Close has returned.
func closeWhileHeld(t *testing.T, c *lockkit.Client, held *redistest.Silence, campaign <-chan error) error {
	t.Helper()
	closed := redistest.CloseWhileHeldUp(t, c, held, "the Campaign's command")
	err := redistest.Receive(t, campaign, redistest.Hang, "the Campaign")
	if cerr := redistest.Receive(t, closed, redistest.Hang, "Close"); cerr != nil {
		t.Fatal(cerr)
	}
	return err
}

// campaignErr starts e.Campaign(ctx, value) and returns the channel its
// error arrives on. A leadership it wins is left as it is: what is left in
// Redis is the Campaign's doing.
func campaignErr(ctx context.Context, e *election.Election, value string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := e.Campaign(ctx, value)
		done <- err
	}()
	return done
}

// TestCampaign_whose_acquire_is_on_its_way_when_the_Client_closes_returns_ErrClosed_and_leaves_no_leader
// holds up the acquire of a Campaign until its Client has closed; the
// acquire then takes the leadership: Campaign returns ErrClosed and gives
// it back before it returns, so that nobody leads and a candidate of
// another Client leads at once, although the lease is far longer than the
// test.
func TestCampaign_whose_acquire_is_on_its_way_when_the_Client_closes_returns_ErrClosed_and_leaves_no_leader(t *testing.T) {
	s, rc, silent := silentServer(t, redistest.IsScript)
	defer silent.Off()
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	c := lockkit.New(rc)
	loadScripts(ctx, t, c, name)

	silent.On()
	err := closeWhileHeld(t, c, silent, campaignErr(ctx, election.New(c, name, long), "a"))
	redistest.WantErr(t, err, lockkit.ErrClosed)
	other := redistest.Lockkit(t, s.Client(t))
	if got, err := election.New(other, name).Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after the Campaign = %+v, %v; want nobody", got, err)
	}
	b := mustCampaign(ctx, t, election.New(other, name, long), "b")
	resignsClean(ctx, t, b, s.Client(t), name)
}

// TestCampaign_whose_proclamation_is_on_its_way_when_the_Client_closes_returns_ErrClosed_and_tells_the_observers
// holds up the reply of a Campaign's proclamation, which took effect and
// which an observer of another Client heard of, until the candidate's
// Client has closed: the Campaign returns ErrClosed, not a leadership
// already reported lost, and gives the leadership back, which tells the
// observer that nobody leads, at once although the lease is far longer
// than the test; and nothing is left in Redis.
func TestCampaign_whose_proclamation_is_on_its_way_when_the_Client_closes_returns_ErrClosed_and_tells_the_observers(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	late := lateProclamations()
	defer late.Off()
	rc.AddHook(late)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := lockkit.New(rc)
	loadScripts(ctx, t, c, name)
	obs := vacantObserver(ctx, t, s, name)

	late.On()
	campaign := campaignErr(ctx, election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	observeUntil(t, obs, "a to be proclaimed", func(l election.Leader) bool { return l.Value == "a" })
	redistest.WantErr(t, closeWhileHeld(t, c, late, campaign), lockkit.ErrClosed)
	vacancyWithin(t, obs, 5*time.Second)
	redistest.AssertClean(t, s.Client(t), name)
}
