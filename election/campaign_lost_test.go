package election_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// beforeProclamation is a go-redis hook that, once, runs do before the
// first proclamation the client sends.
type beforeProclamation struct {
	done atomic.Bool
	do   func()
}

func (h *beforeProclamation) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *beforeProclamation) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if proclaims(cmd) && h.done.CompareAndSwap(false, true) {
			h.do()
		}
		return next(ctx, cmd)
	}
}

func (h *beforeProclamation) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestCampaign_whose_hold_is_lost_before_the_proclamation_campaigns_again
// takes the candidate's hold away between its acquire and its
// proclamation (the election's hash deleted, as a failover to a replica
// it had not reached leaves it): nobody heard of the candidate, which
// still wants to lead, so Campaign takes the lock again and returns a
// leadership with a later term, the observers hearing of it alone.
func TestCampaign_whose_hold_is_lost_before_the_proclamation_campaigns_again(t *testing.T) {
	s := redistest.StartServer(t)
	admin := s.Client(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	obs := vacantObserver(ctx, t, s, name)
	rc := s.Client(t)
	hash := core.NewKeys(lockkit.DefaultPrefix, name, false).Base
	rc.AddHook(&beforeProclamation{do: func() {
		if n, err := admin.Del(ctx, hash).Result(); n != 1 || err != nil {
			t.Errorf("DEL of the election's hash = %d, %v; want 1", n, err)
		}
	}})
	e := election.New(redistest.Lockkit(t, rc), name)
	l, err := e.Campaign(ctx, "a")
	if err != nil {
		t.Fatalf("Campaign = %v, want the leadership", err)
	}
	if got := l.Leader(); got.Value != "a" || got.Term < 2 {
		t.Errorf("Leader = %+v, want a with a term after the lost hold's", got)
	}
	if got := nextLeader(t, obs, "the new leader"); got != l.Leader() {
		t.Errorf("observer heard of %+v, want %+v", got, l.Leader())
	}
	if err := l.Resign(ctx); err != nil {
		t.Fatalf("Resign = %v", err)
	}
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
	redistest.AssertClean(t, admin, name)
}
