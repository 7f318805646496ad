package election_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestResign_after_the_Client_closed_frees_the_leadership_and_tells_the_observers
// closes the Client of a leader whose lease is far longer than the test:
// its Context ends with a cause matching ErrLost, and its Resign, a
// release, still frees the leadership in Redis: it returns ErrLost, an
// observer of another Client sees at once that nobody leads, a candidate
// of another Client leads at once, and the closed candidate's next
// Campaign returns ErrClosed.
func TestResign_after_the_Client_closed_frees_the_leadership_and_tells_the_observers(t *testing.T) {
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	c := lockkit.New(s.Client(t))
	e := election.New(c, name, long)
	a := mustCampaign(ctx, t, e, "a")
	other := redistest.Lockkit(t, s.Client(t))
	obs := mustObserve(ctx, t, election.New(other, name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, a.Context().Done(), redistest.Hang, "the leadership's Context to end")
	if cause := context.Cause(a.Context()); !errors.Is(cause, lockkit.ErrLost) {
		t.Fatalf("cause after Close = %v, want ErrLost", cause)
	}
	redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)
	vacancyWithin(t, obs, 5*time.Second)
	b := mustCampaign(ctx, t, election.New(other, name, long), "b")
	_, err := e.Campaign(ctx, "again")
	redistest.WantErr(t, err, lockkit.ErrClosed)
	resignsClean(ctx, t, b, s.Client(t), name)
}
