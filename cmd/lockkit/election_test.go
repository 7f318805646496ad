package main

import (
	"context"
	"strings"
	"testing"
	"time"

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

// lead campaigns for value in the fixture's own process, which leads at
// once, and returns its leadership.
func lead(t *testing.T, f *fixture, value string) *election.Leadership {
	t.Helper()
	l, err := election.New(f.lc, f.name).Campaign(f.ctx, value)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// candidate campaigns for value with a candidate of client c in a
// goroutine, waits until it waits for the leader and returns a channel
// receiving the outcome.
func candidate(t *testing.T, f *fixture, c *lockkit.Client, value string) <-chan won {
	t.Helper()
	out := make(chan won, 1)
	waitingInBackground(t, "the candidate to wait", func(ctx context.Context) error {
		l, err := election.New(c, f.name).Campaign(ctx, value)
		out <- won{l, err}
		return err
	}, func() bool { return reentrantWaiting(t, f.rc, f.prefix, f.name) })
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
	forEachBackend(t, func(t *testing.T, f *fixture) {
		term := lead(t, f, "leader a").Leader().Term
		// A candidate in another process, and an observer in a third.
		other := f.process(t)
		candidate(t, f, other, "b")
		if _, err := election.New(f.process(t), f.name).Observe(f.ctx); err != nil {
			t.Fatal(err)
		}

		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Kind != "election" || !l.Held || l.Mode != "exclusive" || len(l.Holders) != 1 || l.Latch != nil {
			t.Fatalf("show %s: kind %q held %v mode %q holders %+v latch %+v; want an election led by one hold",
				f.name, l.Kind, l.Held, l.Mode, l.Holders, l.Latch)
		}
		h := l.Holders[0]
		e := l.Election
		if e == nil || e.Value == nil || *e.Value != "leader a" || e.Term != term || e.Leader != h.Owner || h.Token != term || h.Count != 1 {
			t.Errorf("show %s: election %+v (value %v), holder %+v; want leader a, term %d", f.name, e, e.Value, h, term)
		}
		if e != nil && (e.LeaseMS <= 0 || e.LeaseMS > lockkit.DefaultWatchdogTimeout.Milliseconds() || e.LeaseMS != l.TTLMS) {
			t.Errorf("lease_ms %d, ttl_ms %d: want the leader's live lease, twice", e.LeaseMS, l.TTLMS)
		}
		candidates, candidatesRe := "candidates", `(?m)^\s+\S+:ch\s+candidates\s+1$`
		if id := other.Notifier().ID(); core.OneProcess(f.rc) {
			candidates, candidatesRe = "process "+id, `(?m)^\s+\S+:ch:`+id+`\s+process `+id+`\s+1$`
			if len(l.Processes) != 1 || l.Processes[0].ID != id {
				t.Errorf("processes %+v, want the candidate's process %s", l.Processes, id)
			}
		}
		wantSubscribers(t, &l, candidates, 1)
		wantSubscribers(t, &l, "observers", 1)
		wantNoAnomalies(t, &l)

		out := f.ok(t, "show", "--prefix", f.prefix, f.name)
		for _, re := range []string{`(?m)^kind\s+election$`, `(?m)^leader\s+"leader a" \(` + h.Owner + `\)$`,
			`(?m)^term\s+` + itoa(term) + `$`, `(?m)^lease\s+\d`, candidatesRe,
			`(?m)^\s+\S+:observe\s+observers\s+1$`, `(?m)^anomalies: none$`} {
			if !matches(re, out) {
				t.Errorf("show %s printed\n%s\nwant a line matching %s", f.name, out, re)
			}
		}

		var entries []Entry
		f.okJSON(t, &entries, "ls", "--prefix", f.prefix)
		if len(entries) != 1 || entries[0].Kind != "election" || entries[0].Election == nil || entries[0].Election.Term != term ||
			entries[0].Anomalies != 0 || len(entries[0].Holders) != 1 {
			t.Errorf("ls: %+v, want the election, term %d, no anomaly", entries, term)
		}
		if out := f.ok(t, "ls", "--prefix", f.prefix); !matches(`(?m)^`+f.name+`\s+election\s+exclusive\s+\S+\(1\)\s+`+itoa(term)+`\s.*\s0\s+leader="leader a"$`, out) {
			t.Errorf("ls printed\n%s\nwant the election's line with its leader", out)
		}
	})
}

func TestUnlock_force_frees_an_election_wakes_a_candidate_and_tells_the_observers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		a := lead(t, f, "a")
		ta := a.Leader().Term
		obs, err := election.New(f.process(t), f.name).Observe(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == election.Leader{Value: "a", Term: ta} })
		campaign := candidate(t, f, f.process(t), "b")

		// Without --yes: refused, nothing changed.
		r := f.run(t, "unlock", "--force", "--prefix", f.prefix, f.name)
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
		f.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", f.prefix, f.name)
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
		redistest.WantErr(t, a.Resign(f.ctx), lockkit.ErrLost)
		observeUntil(t, obs, "b to lead", func(l election.Leader) bool { return l == election.Leader{Value: "b", Term: tb} })

		// With nobody to take over, the observers learn at once that
		// nobody leads (a dead leader's observers would wait out its 30 s
		// lease): the command tells them, as Resign does.
		f.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", f.prefix, f.name)
		if !res.Freed {
			t.Errorf("unlock --force --yes printed %+v, want b's hold freed", res)
		}
		observeUntil(t, obs, "nobody to lead", func(l election.Leader) bool { return l == election.Leader{} })
		redistest.WantErr(t, b.Resign(f.ctx), lockkit.ErrLost)
		if out := f.ok(t, "unlock", "--force", "--yes", "--prefix", f.prefix, f.name); !strings.Contains(out, "not held") {
			t.Errorf("unlock of a vacant election printed %q", out)
		}
	})
}
