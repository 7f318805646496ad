package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

func TestShow_decodes_a_semaphore_its_permits_holders_and_queue(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		s := semaphore.New(f.lc, f.name, 3)
		p2, err := s.Acquire(f.ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		other := f.process(t)
		p1, err := semaphore.New(other, f.name, 3).Acquire(f.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		// A waiter for 2 permits in a third process.
		third := f.process(t)
		got := make(chan *semaphore.Permits, 1)
		waited := waitingInBackground(t, "the waiter to queue", func(ctx context.Context) error {
			p, err := semaphore.New(third, f.name, 3).Acquire(ctx, 2)
			got <- p
			return err
		}, func() bool { return zcard(t, f.rc, keys(f.prefix, f.name).Sub("waiters")) == 1 })
		holders, err := s.Holders(f.ctx)
		if err != nil || len(holders) != 2 {
			t.Fatalf("Holders = %+v, %v", holders, err)
		}

		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Kind != "semaphore" || !l.Held || l.Mode != "held" || l.Latch != nil || l.Election != nil {
			t.Errorf("show %s: kind %q held %v mode %q; want a held semaphore", f.name, l.Kind, l.Held, l.Mode)
		}
		if l.Semaphore == nil || l.Semaphore.Permits != nil || l.Semaphore.Used != 3 || l.Semaphore.Live != 3 || l.Semaphore.Free != nil {
			t.Errorf("show %s: semaphore %+v, want 3 used, the number not stored", f.name, l.Semaphore)
		}
		for _, h := range holders {
			i := slices.IndexFunc(l.Holders, func(x Holder) bool { return x.Hold == h.ID })
			if i < 0 {
				t.Errorf("show %s: holders %+v, want %s", f.name, l.Holders, h.ID)
				continue
			}
			x := l.Holders[i]
			if x.Permits != int64(h.Permits) || x.Token != h.Token || x.Count != 1 || x.Mode != "permits" ||
				x.LeaseMS <= 0 || x.LeaseMS > lockkit.DefaultWatchdogTimeout.Milliseconds() || x.Expired {
				t.Errorf("show %s: holder %+v, want %d permits, token %d and a live lease", f.name, x, h.Permits, h.Token)
			}
		}
		if len(l.Holders) != 2 {
			t.Errorf("show %s: %d holders, want 2", f.name, len(l.Holders))
		}
		if q := l.Queue; q == nil || q.Length != 1 || len(q.Waiters) != 1 || q.Waiters[0].Permits != 2 ||
			strings.HasPrefix(q.Waiters[0].Owner, "2:") || q.Waiters[0].Expired {
			t.Errorf("show %s: queue %+v, want one live waiter for 2 permits", f.name, l.Queue)
		} else {
			wantSubscribers(t, &l, "waiter "+q.Waiters[0].Owner, 1)
		}
		wantNoAnomalies(t, &l)

		out := f.ok(t, "show", "--prefix", f.prefix, f.name)
		for _, re := range []string{`(?m)^kind\s+semaphore$`, `(?m)^state\s+held, lease \d`,
			`(?m)^permits\s+not stored`, `(?m)^used\s+3 held$`, `(?m)^\s+HOLD\s+PERMITS\s+TOKEN\s+LEASE$`,
			`(?m)^\s+` + holders[0].ID + `\s+` + "[12]" + `\s+\d+\s+\d`, `(?m)^queue: 1 waiting$`,
			`(?m)^\s+1\s+\S+\s+2\s+\d+\s+in \d`, `(?m)^anomalies: none$`} {
			if !matches(re, out) {
				t.Errorf("show %s printed\n%s\nwant a line matching %s", f.name, out, re)
			}
		}

		// ls: a summary, then the number set at run time (one more permit:
		// still one short of the waiter's two).
		var entries []Entry
		f.okJSON(t, &entries, "ls", "--prefix", f.prefix)
		if len(entries) != 1 || entries[0].Kind != "semaphore" || entries[0].Semaphore == nil || entries[0].Semaphore.Used != 3 ||
			entries[0].Waiters == nil || *entries[0].Waiters != 1 || entries[0].Anomalies != 0 || len(entries[0].Holders) != 2 {
			t.Errorf("ls: %+v, want the semaphore, 3 used, 1 waiter, no anomaly", entries)
		}
		if err := s.SetPermits(f.ctx, 4); err != nil {
			t.Fatal(err)
		}
		if out := f.ok(t, "ls", "--prefix", f.prefix); !matches(`(?m)^`+f.name+`\s+semaphore\s+held\s+\S+\(\d\) \S+\(\d\)\s+\S+\s+\S+\s+1\s+0\s+used=3/4$`, out) {
			t.Errorf("ls printed\n%s\nwant the semaphore's line with used=3/4", out)
		}
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if sem := l.Semaphore; sem == nil || sem.Permits == nil || *sem.Permits != 4 || sem.Free == nil || *sem.Free != 1 || sem.PermitsTTLMS <= 0 {
			t.Errorf("show %s after SetPermits(4): semaphore %+v, want 4 permits, 1 free, with a TTL", f.name, l.Semaphore)
		}
		wantNoAnomalies(t, &l)

		// unlock --force refuses, with or without --yes, and changes
		// nothing.
		f.wantForceRefused(t, "is a semaphore (3 permits held by 2 holds)", "SetPermits")

		// Released, the waiter takes its permits; released too, nothing is
		// held and show says so without anomalies.
		if err := p2.Release(f.ctx); err != nil {
			t.Fatal(err)
		}
		if err := redistest.Receive(t, waited, 10*time.Second, "the waiter's Acquire"); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		for _, p := range []*semaphore.Permits{p1, <-got} {
			if err := p.Release(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Kind != "semaphore" || l.Held || l.Mode != "free" || len(l.Holders) != 0 || l.Semaphore == nil || l.Semaphore.Used != 0 {
			t.Errorf("show of the released semaphore: kind %q held %v mode %q holders %+v semaphore %+v", l.Kind, l.Held, l.Mode, l.Holders, l.Semaphore)
		}
		wantNoAnomalies(t, &l)
	})
}

// TestShow_counts_the_permits_of_holds_whose_lease_ended_as_free: a hold
// past its lease still counts in ':used' until the next script on the
// semaphore frees it, but its permits are free already (an Acquire would
// get them): show gives them as free, and ls leaves them out of its
// used=HELD/PERMITS, as Semaphore.Available does.
func TestShow_counts_the_permits_of_holds_whose_lease_ended_as_free(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		s := semaphore.New(f.lc, f.name, 3)
		if err := s.SetPermits(f.ctx, 3); err != nil {
			t.Fatal(err)
		}
		// Held for 2 permits by a process that stopped: a fixed lease,
		// never renewed.
		if _, err := semaphore.New(f.process(t), f.name, 3, lockkit.WithLease(300*time.Millisecond)).Acquire(f.ctx, 2); err != nil {
			t.Fatal(err)
		}
		p, err := s.Acquire(f.ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		var l Lock
		redistest.Eventually(t, 10*time.Second, "the hold of 2 to be past its lease", func() bool {
			f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
			return slices.ContainsFunc(l.Holders, func(h Holder) bool { return h.Permits == 2 && h.Expired })
		})
		if sem := l.Semaphore; sem == nil || sem.Used != 3 || sem.Live != 1 || sem.Free == nil || *sem.Free != 2 {
			t.Errorf("show: semaphore %+v, want 3 used, 1 live, 2 free", l.Semaphore)
		}
		if out := f.ok(t, "show", "--prefix", f.prefix, f.name); !matches(`(?m)^used\s+3 held \(2 by holds whose lease ended\), 2 free$`, out) {
			t.Errorf("show printed\n%s\nwant 2 free", out)
		}
		if out := f.ok(t, "ls", "--prefix", f.prefix); !matches(`(?m)^`+f.name+`\s+semaphore\s.*\sused=1/3$`, out) {
			t.Errorf("ls printed\n%s\nwant used=1/3", out)
		}
		if n, err := s.Available(f.ctx); err != nil || n != 2 {
			t.Errorf("Available = %d, %v; want 2", n, err)
		}
		if err := p.Release(f.ctx); err != nil {
			t.Fatal(err)
		}
	})
}
