package election_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// errUnsent is the error a refuseNext hook gives the command it refuses.
var errUnsent = errors.New("refused: never sent")

// refuseNext is a go-redis hook that, once armed, fails the next command
// that Match selects without sending it, as a connection that broke
// before the request left does, and disarms itself.
type refuseNext struct {
	Match func(redis.Cmder) bool
	armed atomic.Bool
}

// DialHook passes dials through.
func (h *refuseNext) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook fails the first selected command while armed.
func (h *refuseNext) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.Match(cmd) && h.armed.CompareAndSwap(true, false) {
			cmd.SetErr(errUnsent)
			return errUnsent
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook passes pipelines through.
func (h *refuseNext) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestCampaign_whose_give_back_never_left_gives_the_leadership_back_later
// loses the reply of a proclamation, and the give-back that follows
// never reaches the server: Campaign fails saying so, and the candidate,
// which never campaigns again, gives the leadership back in the
// background. With a lease far longer than the test, only that lets the
// observer, which heard of the proclaimed leader, see that nobody leads,
// and another candidate lead.
func TestCampaign_whose_give_back_never_left_gives_the_leadership_back_later(t *testing.T) {
	s := redistest.StartServer(t)
	rc := s.Client(t)
	proclaim := &redistest.DropReply{Match: proclaims}
	giveBack := &refuseNext{Match: func(cmd redis.Cmder) bool {
		return redistest.IsScript(cmd) && !proclaims(cmd) && !proclaim.Armed()
	}}
	rc.AddHook(proclaim)
	rc.AddHook(giveBack)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	long := lockkit.WithWatchdogTimeout(5 * time.Minute)
	// Load the scripts first.
	warm := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, rc), name+"-warm"), "warm")
	if err := warm.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
	nextLeader(t, obs, "the first report")
	proclaim.Arm()
	giveBack.armed.Store(true)
	_, err := election.New(redistest.Lockkit(t, rc), name, long).Campaign(ctx, "a")
	redistest.WantErr(t, err, redistest.ErrReplyDropped, errUnsent)
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
	b := redistest.Receive(t, campaignAsync(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, long), "b"), redistest.Hang, "b to lead")
	if b == nil {
		t.FailNow()
	}
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	redistest.AssertClean(t, rc, name)
}
