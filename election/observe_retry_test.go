package election_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestObserve_reads_again_after_a_failed_read loses the reply of the read
// an observer makes on hearing of a new leader, whose lease is far longer
// than the test, while its pub/sub connection stays up: nothing but the
// observer's retry of the failed read can report that leader in time, and
// the channel stays open.
func TestObserve_reads_again_after_a_failed_read(t *testing.T) {
	s, rc, drop := droppingServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, rc), name))
	if l := nextLeader(t, obs, "the first report"); l != (election.Leader{}) {
		t.Fatalf("first report = %+v, want nobody", l)
	}
	drop.Arm()
	a := mustCampaign(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name, lockkit.WithWatchdogTimeout(5*time.Minute)), "a")
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	if drop.Armed() {
		t.Error("no read of the observer lost its reply")
	}
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
}

// TestObserve_an_observer_that_fell_behind_gets_the_latest_leader: an
// observer that stops reading while a, b, c and d lead in turn gets, when
// it reads again, none of the leaders replaced meanwhile but the latest:
// changes are read, not queued, and the one it has not taken is replaced
// by the newer.
func TestObserve_an_observer_that_fell_behind_gets_the_latest_leader(t *testing.T) {
	s := redistest.StartServer(t)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	lc := redistest.Lockkit(t, s.Client(t))
	slow := mustObserve(ctx, t, election.New(lc, name))
	nextLeader(t, slow, "the slow observer's first report")
	// Another observer of the same Client, woken by the same messages,
	// tells when each change was heard of.
	paced := mustObserve(ctx, t, election.New(lc, name))
	nextLeader(t, paced, "the paced observer's first report")
	e := election.New(redistest.Lockkit(t, s.Client(t)), name)
	var last *election.Leadership
	for _, v := range []string{"a", "b", "c", "d"} {
		last = mustCampaign(ctx, t, e, v)
		observeUntil(t, paced, v+" to lead", func(l election.Leader) bool { return l == last.Leader() })
		if v == "d" {
			break
		}
		if err := last.Resign(ctx); err != nil {
			t.Fatal(err)
		}
		observeUntil(t, paced, "nobody to lead after "+v, func(l election.Leader) bool { return l == election.Leader{} })
	}
	got := observeUntil(t, slow, "d to lead", func(l election.Leader) bool {
		if l.Value == "a" || l.Value == "b" {
			t.Errorf("the slow observer got %+v, a leader replaced before it read again", l)
		}
		return l == last.Leader()
	})
	if got != last.Leader() {
		t.Fatalf("slow observer: %+v, want %+v", got, last.Leader())
	}
	if err := last.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
