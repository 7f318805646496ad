package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

func TestShow_decodes_a_latch_its_count_expiry_and_waiters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		l3 := latch.New(f.lc, f.name, 3)
		if n, err := l3.CountDown(f.ctx); err != nil || n != 2 {
			t.Fatalf("CountDown: %d, %v; want 2 left", n, err)
		}
		// A waiter in another process (another Client, with a pub/sub
		// connection of its own).
		other := f.process(t)
		awaited := waitingInBackground(t, "the latch's waiter to subscribe", latch.New(other, f.name, 3).Await, func() bool {
			return numSub(t, f.rc, keys(f.prefix, f.name).Channel) == 1
		})

		var l Lock
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Kind != "latch" || l.Held || l.Mode != "closed" || len(l.Holders) != 0 || l.Election != nil {
			t.Errorf("show %s: kind %q held %v mode %q holders %+v election %+v; want a closed latch and nothing else",
				f.name, l.Kind, l.Held, l.Mode, l.Holders, l.Election)
		}
		if l.Latch == nil || *l.Latch != (Latch{Count: 2, CountDowns: 1}) {
			t.Errorf("show %s: latch %+v, want 2 left after 1 count-down", f.name, l.Latch)
		}
		if l.TTLMS <= 0 || l.TTLMS > latch.DefaultExpiry.Milliseconds() {
			t.Errorf("show %s: ttl_ms %d, want the latch's expiry, at most %v", f.name, l.TTLMS, latch.DefaultExpiry)
		}
		wantSubscribers(t, &l, "waiters", 1)
		wantNoAnomalies(t, &l)

		out := f.ok(t, "show", "--prefix", f.prefix, f.name)
		for _, re := range []string{`(?m)^kind\s+latch$`, `(?m)^state\s+closed, 2 left, expires in \d`,
			`(?m)^count\s+2 left, 1 count-downs recorded$`, `(?m)^expiry\s+expires in \d`,
			`(?m)^\s+\S+:ch\s+waiters\s+1$`, `(?m)^anomalies: none$`} {
			if !matches(re, out) {
				t.Errorf("show %s printed\n%s\nwant a line matching %s", f.name, out, re)
			}
		}
		if strings.Contains(out, "holders:") {
			t.Errorf("show %s printed\n%s\nwant no holders: a latch has none", f.name, out)
		}

		// ls: the count while closed.
		var entries []Entry
		f.okJSON(t, &entries, "ls", "--prefix", f.prefix)
		if len(entries) != 1 || entries[0].Kind != "latch" || entries[0].Mode != "closed" || entries[0].Latch == nil ||
			entries[0].Latch.Count != 2 || entries[0].Anomalies != 0 || len(entries[0].Holders) != 0 {
			t.Errorf("ls: %+v, want the closed latch, 2 left, no anomaly", entries)
		}
		if out := f.ok(t, "ls", "--prefix", f.prefix); !matches(`(?m)^`+f.name+`\s+latch\s+closed\s+-\s+-\s+\S+\s+-\s+0\s+count=2$`, out) {
			t.Errorf("ls printed\n%s\nwant the latch's line with count=2", out)
		}

		// unlock --force refuses a latch, with or without --yes, and
		// changes nothing.
		f.wantForceRefused(t, "not a lock", "2 count-downs left")
		select {
		case err := <-awaited:
			t.Fatalf("Await returned %v before the latch opened", err)
		default:
		}

		// Open: the waiter returns, and the latch shows open, with its
		// ids dropped.
		for range 2 {
			if _, err := l3.CountDown(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := redistest.Receive(t, awaited, 10*time.Second, "the waiter to return"); err != nil {
			t.Fatalf("Await: %v", err)
		}
		f.okJSON(t, &l, "show", "--prefix", f.prefix, f.name)
		if l.Mode != "open" || l.Latch == nil || *l.Latch != (Latch{Open: true}) || l.TTLMS <= 0 {
			t.Errorf("show of the open latch: mode %q latch %+v ttl_ms %d", l.Mode, l.Latch, l.TTLMS)
		}
		wantNoAnomalies(t, &l)
		if out := f.ok(t, "ls", "--prefix", f.prefix); !matches(`(?m)^`+f.name+`\s+latch\s+open\s.*\sopen$`, out) {
			t.Errorf("ls printed\n%s\nwant the open latch", out)
		}
	})
}
