package election_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestCampaign_whose_ctx_ends_during_its_proclamation_returns_within_500ms_and_leaves_no_leader
// makes the server seem to stop answering a Campaign once its
// proclamation, which takes effect and which an observer hears of, is
// sent: the proclamation's reply and the give-back that follows are held
// up, and the Campaign's ctx ends meanwhile. Campaign returns an error
// matching ErrNotObtained and DeadlineExceeded at most 500 ms (and some
// slack) past the deadline. Once the server answers again, the give-back
// in doubt is settled: the observer, whose leader has a lease far longer
// than the test, sees at once that nobody leads, and the candidate
// campaigns again and leads.
func TestCampaign_whose_ctx_ends_during_its_proclamation_returns_within_500ms_and_leaves_no_leader(t *testing.T) {
	var proclaimed atomic.Bool
	s, rc, held := silentServer(t, func(cmd redis.Cmder) bool {
		return redistest.IsScript(cmd) && !proclaims(cmd) && proclaimed.Load()
	})
	defer held.Off()
	late := &redistest.Silence{Match: func(cmd redis.Cmder) bool {
		if !proclaims(cmd) {
			return false
		}
		proclaimed.Store(true)
		return true
	}, Late: true, Max: 2 * redistest.Hang}
	defer late.Off()
	rc.AddHook(late)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	c := redistest.Lockkit(t, rc)
	loadScripts(ctx, t, c, name)
	obs := vacantObserver(ctx, t, s, name)
	e := election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute))

	late.On()
	held.On()
	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	start := time.Now()
	_, err := e.Campaign(short, "a")
	took := time.Since(start)
	redistest.WantErr(t, err, lockkit.ErrNotObtained, context.DeadlineExceeded)
	if took > wait+500*time.Millisecond+300*time.Millisecond {
		t.Errorf("Campaign returned %v after it began, with a deadline of %v", took, wait)
	}
	if l := nextLeader(t, obs, "a to be proclaimed"); l.Value != "a" {
		t.Fatalf("observer reported %+v, want a proclaimed", l)
	}

	late.Off()
	held.Off()
	vacancyWithin(t, obs, 5*time.Second)
	l := mustCampaign(ctx, t, e, "b")
	resignsClean(ctx, t, l, s.Client(t), name)
}
