package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// won is the outcome of a campaign.
type won struct {
	l   *election.Leadership
	err error
}

// campaignInBackground campaigns for value with candidate e in a
// goroutine, as waitInBackground locks, and returns a channel receiving
// the outcome.
func campaignInBackground(t *testing.T, e *election.Election, value string) <-chan won {
	t.Helper()
	out := make(chan won, 1)
	waitInBackground(t, func(ctx context.Context) error {
		l, err := e.Campaign(ctx, value)
		out <- won{l, err}
		return err
	})
	return out
}

// observeUntil reads leaders from obs until one satisfies ok, failing the
// test if none does within 10 s.
func observeUntil(t *testing.T, obs <-chan election.Leader, what string, ok func(election.Leader) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, open := <-obs:
			if !open {
				t.Fatalf("the observer's channel closed before %s", what)
			}
			if ok(l) {
				return
			}
		case <-deadline:
			t.Fatalf("the observer did not see %s within 10s", what)
		}
	}
}

func TestShow_decodes_an_election_its_leader_candidates_and_observers(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		lc, prefix := prefixed(t, rc)
		c := cliFor(t, rc)
		ctx := redistest.Ctx(t, 30*time.Second)
		name := redistest.Unique(t)
		lead, err := election.New(lc, name).Campaign(ctx, "leader a")
		if err != nil {
			t.Fatal(err)
		}
		term := lead.Leader().Term
		// A candidate in another process, and an observer in a third.
		other := redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix))
		campaignInBackground(t, election.New(other, name), "b")
		if _, err := election.New(redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), name).Observe(ctx); err != nil {
			t.Fatal(err)
		}
		redistest.Eventually(t, 10*time.Second, "the candidate to wait", func() bool {
			return reentrantWaiting(t, rc, prefix, name)
		})

		var l Lock
		c.okJSON(t, &l, "show", "--prefix", prefix, name)
		if l.Kind != "election" || !l.Held || l.Mode != "exclusive" || len(l.Holders) != 1 || l.Latch != nil {
			t.Fatalf("show %s: kind %q held %v mode %q holders %+v latch %+v; want an election led by one hold",
				name, l.Kind, l.Held, l.Mode, l.Holders, l.Latch)
		}
		h := l.Holders[0]
		e := l.Election
		if e == nil || e.Value == nil || *e.Value != "leader a" || e.Term != term || e.Leader != h.Owner || h.Token != term || h.Count != 1 {
			t.Errorf("show %s: election %+v (value %v), holder %+v; want leader a, term %d", name, e, e.Value, h, term)
		}
		if e != nil && (e.LeaseMS <= 0 || e.LeaseMS > lockkit.DefaultWatchdogTimeout.Milliseconds() || e.LeaseMS != l.TTLMS) {
			t.Errorf("lease_ms %d, ttl_ms %d: want the leader's live lease, twice", e.LeaseMS, l.TTLMS)
		}
		candidates, candidatesRe := "candidates", `(?m)^\s+\S+:ch\s+candidates\s+1$`
		if id := other.Notifier().ID(); core.OneProcess(rc) {
			candidates, candidatesRe = "process "+id, `(?m)^\s+\S+:ch:`+id+`\s+process `+id+`\s+1$`
			if len(l.Processes) != 1 || l.Processes[0].ID != id {
				t.Errorf("processes %+v, want the candidate's process %s", l.Processes, id)
			}
		}
		wantSubscribers(t, &l, candidates, 1)
		wantSubscribers(t, &l, "observers", 1)
		wantNoAnomalies(t, &l)

		out := c.ok(t, "show", "--prefix", prefix, name)
		for _, re := range []string{`(?m)^kind\s+election$`, `(?m)^leader\s+"leader a" \(` + h.Owner + `\)$`,
			`(?m)^term\s+` + itoa(term) + `$`, `(?m)^lease\s+\d`, candidatesRe,
			`(?m)^\s+\S+:observe\s+observers\s+1$`, `(?m)^anomalies: none$`} {
			if !matches(re, out) {
				t.Errorf("show %s printed\n%s\nwant a line matching %s", name, out, re)
			}
		}

		var entries []Entry
		c.okJSON(t, &entries, "ls", "--prefix", prefix)
		if len(entries) != 1 || entries[0].Kind != "election" || entries[0].Election == nil || entries[0].Election.Term != term ||
			entries[0].Anomalies != 0 || len(entries[0].Holders) != 1 {
			t.Errorf("ls: %+v, want the election, term %d, no anomaly", entries, term)
		}
		if out := c.ok(t, "ls", "--prefix", prefix); !matches(`(?m)^`+name+`\s+election\s+exclusive\s+\S+\(1\)\s+`+itoa(term)+`\s.*\s0\s+leader="leader a"$`, out) {
			t.Errorf("ls printed\n%s\nwant the election's line with its leader", out)
		}
	})
}

func TestUnlock_force_frees_an_election_wakes_a_candidate_and_tells_the_observers(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		lc, prefix := prefixed(t, rc)
		c := cliFor(t, rc)
		ctx := redistest.Ctx(t, 30*time.Second)
		name := redistest.Unique(t)
		lead, err := election.New(lc, name).Campaign(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		ta := lead.Leader().Term
		obs, err := election.New(redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), name).Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == election.Leader{Value: "a", Term: ta} })
		campaign := campaignInBackground(t, election.New(redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), name), "b")
		redistest.Eventually(t, 10*time.Second, "the candidate to wait", func() bool {
			return reentrantWaiting(t, rc, prefix, name)
		})

		// Without --yes: refused, nothing changed.
		r := c.run(t, "unlock", "--force", "--prefix", prefix, name)
		if r.code != exitFail || !strings.Contains(r.stderr, "refusing without --yes") || !strings.Contains(r.stderr, "election") {
			t.Errorf("unlock --force without --yes: status %d, stderr %q; want %d and a refusal", r.code, r.stderr, exitFail)
		}
		select {
		case w := <-campaign:
			t.Fatalf("the candidate's Campaign returned (%v) while the leader still led", w.err)
		default:
		}

		// With --yes: the candidate is woken and leads at once (long
		// before the leader's 30 s lease would end), with a larger term;
		// the old leader's Resign reports the loss.
		var res UnlockResult
		c.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", prefix, name)
		if !res.Freed || res.Kind != "election" || len(res.Holders) != 1 || res.Holders[0].Token != ta {
			t.Errorf("unlock --force --yes printed %+v, want the leader's hold freed", res)
		}
		w := redistest.Receive(t, campaign, wokenWithin, "the candidate to lead")
		if w.err != nil {
			t.Fatalf("the candidate's Campaign: %v", w.err)
		}
		b := w.l
		tb := b.Leader().Term
		if tb <= ta {
			t.Errorf("the new term %d is not above the old %d", tb, ta)
		}
		redistest.WantErr(t, lead.Resign(ctx), lockkit.ErrLost)
		observeUntil(t, obs, "b to lead", func(l election.Leader) bool { return l == election.Leader{Value: "b", Term: tb} })

		// With nobody to take over, the observers learn at once that
		// nobody leads (a dead leader's observers would wait out its 30 s
		// lease): the command tells them, as Resign does.
		c.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", prefix, name)
		if !res.Freed {
			t.Errorf("unlock --force --yes printed %+v, want b's hold freed", res)
		}
		observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
		redistest.WantErr(t, b.Resign(ctx), lockkit.ErrLost)
		if out := c.ok(t, "unlock", "--force", "--yes", "--prefix", prefix, name); !strings.Contains(out, "not held") {
			t.Errorf("unlock of a vacant election printed %q", out)
		}
	})
}
