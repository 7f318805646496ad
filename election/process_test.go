package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// candidateChild is a child process that campaigns. Its arguments: the
// Redis (redistest.ClientSpec), the election's name, the value, and the
// watchdog timeout in ms. It prints "ready", campaigns, prints "leader
// TERM" once it leads and "lost" if its leadership ends; on the line
// "resign" it resigns and prints "resigned". It exits at the end of its
// input.
func candidateChild(args []string) {
	c, _, done := redistest.ChildLockkit(args[0])
	defer done()
	ms := redistest.ChildAtoi(args[3], "watchdog timeout")
	e := election.New(c, args[1], lockkit.WithWatchdogTimeout(time.Duration(ms)*time.Millisecond))
	redistest.ChildPrintf("ready")
	l, err := e.Campaign(context.Background(), args[2])
	if err != nil {
		redistest.ChildFatalf("Campaign: %v", err)
	}
	redistest.ChildPrintf("leader %d", l.Leader().Term)
	go func() {
		<-l.Context().Done()
		redistest.ChildPrintf("lost")
	}()
	for line := range redistest.ChildLines() {
		if line == "resign" {
			if err := l.Resign(context.Background()); err != nil {
				redistest.ChildFatalf("Resign: %v", err)
			}
			redistest.ChildPrintf("resigned")
		}
	}
}

// TestElection_leader_killed_another_is_elected kills the leading process
// with SIGKILL: a candidate in another process leads once the dead
// leader's lease (1 s) ran out, with a larger term, and an observer in a
// third reports it.
func TestElection_leader_killed_another_is_elected(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		name := redistest.Unique(t)
		spec := redistest.ClientSpec(rc)
		obs, err := election.New(redistest.Lockkit(t, rc), name).Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a := redistest.StartChild(t, "candidate", spec, name, "a", "1000")
		ta := a.WaitInt(t, "leader ", redistest.Hang)
		observeUntil(t, obs, "a to lead", func(l election.Leader) bool {
			return l == election.Leader{Value: "a", Term: ta}
		})
		bc := redistest.StartChild(t, "candidate", spec, name, "b", "1000")
		bc.WaitLine(t, "ready", redistest.Hang)
		a.Kill(t)
		tb := bc.WaitInt(t, "leader ", redistest.Hang)
		if tb <= ta {
			t.Fatalf("term %d after %d", tb, ta)
		}
		observeUntil(t, obs, "b to lead", func(l election.Leader) bool {
			return l == election.Leader{Value: "b", Term: tb}
		})
		bc.Send(t, "resign")
		bc.WaitLine(t, "resigned", redistest.Hang)
		observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
		bc.CloseStdin(t)
		bc.Wait(t, redistest.Hang)
	})
}
