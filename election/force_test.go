package election_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestElection_ForceUnlock_frees_wakes_candidates_and_tells_observers
// gives the leaders a lease far longer than the test's waits: only the
// force unlock's wake-ups and message can make the observer see the
// vacancy and a waiting candidate lead in time.
func TestElection_ForceUnlock_frees_wakes_candidates_and_tells_observers(t *testing.T) {
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, 3*redistest.Hang)
		name := redistest.Unique(t)
		long := lockkit.WithWatchdogTimeout(5 * time.Minute)
		c1, c2, op := redistest.Lockkit(t, rc), redistest.Lockkit(t, rc), redistest.Lockkit(t, rc)
		obs, err := election.New(c2, name).Observe(ctx)
		if err != nil {
			t.Fatalf("Observe: %v", err)
		}
		if ok, err := election.New(op, name).ForceUnlock(ctx); ok || err != nil {
			t.Fatalf("ForceUnlock with nobody leading = %v, %v; want false", ok, err)
		}

		// The observers are told.
		a, err := election.New(c1, name, long).Campaign(ctx, "a")
		if err != nil {
			t.Fatalf("Campaign(a): %v", err)
		}
		observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
		if ok, err := election.New(op, name).ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v; want true", ok, err)
		}
		observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
		if l, err := election.New(op, name).Leader(ctx); l != (election.Leader{}) || err != nil {
			t.Fatalf("Leader after ForceUnlock = %+v, %v; want nobody", l, err)
		}
		redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)

		// A waiting candidate is woken and leads.
		a, err = election.New(c1, name, long).Campaign(ctx, "a")
		if err != nil {
			t.Fatalf("Campaign(a) again: %v", err)
		}
		waiting := make(chan struct{}, 1)
		trace := lockkit.WithTrace(&lockkit.Trace{WaitStart: func(lockkit.WaitStartInfo) {
			select {
			case waiting <- struct{}{}:
			default:
			}
		}})
		won := make(chan *election.Leadership, 1)
		go func() {
			l, err := election.New(c2, name, long, trace).Campaign(ctx, "b")
			if err != nil {
				t.Errorf("Campaign(b): %v", err)
			}
			won <- l
		}()
		redistest.Receive(t, waiting, redistest.Hang, "b to wait")
		if ok, err := election.New(op, name).ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock with a candidate waiting = %v, %v; want true", ok, err)
		}
		b := redistest.Receive(t, won, redistest.Hang, "b to lead")
		if b == nil {
			t.FailNow()
		}
		if b.Leader().Term <= a.Leader().Term {
			t.Fatalf("term %d after %d", b.Leader().Term, a.Leader().Term)
		}
		observeUntil(t, obs, "b to lead", func(l election.Leader) bool { return l == b.Leader() })
		redistest.WantErr(t, a.Resign(ctx), lockkit.ErrLost)

		// The leader's own Election frees it too; its Resign then lets it
		// campaign again.
		e := election.New(c1, name)
		if err := b.Resign(ctx); err != nil {
			t.Fatalf("Resign(b): %v", err)
		}
		l, err := e.Campaign(ctx, "c")
		if err != nil {
			t.Fatalf("Campaign(c): %v", err)
		}
		if ok, err := e.ForceUnlock(ctx); !ok || err != nil {
			t.Fatalf("ForceUnlock by the leader = %v, %v; want true", ok, err)
		}
		redistest.Receive(t, l.Context().Done(), redistest.Hang, "the leader's context to end")
		redistest.WantErr(t, l.Resign(ctx), lockkit.ErrNotHeld)
		if l, err = e.Campaign(ctx, "c"); err != nil {
			t.Fatalf("Campaign after ForceUnlock and Resign: %v", err)
		}
		_ = l.Resign(ctx)
		redistest.AssertClean(t, rc, name)
	})
}
