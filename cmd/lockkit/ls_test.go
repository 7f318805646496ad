package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestLs_lists_every_kind_with_holders_tokens_leases_and_waiters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		k, c := holdEveryKind(t, f), f.cli

		var entries []Entry
		c.okJSON(t, &entries, "ls", "--prefix", k.prefix)
		want := map[string]struct {
			kind, mode string
			holders    []string
			waiters    *int64
		}{
			k.re: {"reentrant", "exclusive", []string{"re-owner exclusive 2 " + itoa(k.reM.Token())}, nil},
			k.sp: {"spin", "exclusive", []string{"spin-owner exclusive 1 " + itoa(k.spM.Token())}, nil},
			k.fa: {"fair", "exclusive", []string{"fair-owner exclusive 1 " + itoa(k.faM.Token())}, ptr(1)},
			k.rw: {"rwlock", "read", []string{"reader-1 read 1 " + itoa(k.reader1.RToken()), "reader-2 read 1 " + itoa(k.reader2.RToken())}, ptr(1)},
		}
		if len(entries) != len(want) {
			t.Fatalf("ls listed %d locks, want %d: %+v", len(entries), len(want), entries)
		}
		for _, e := range entries {
			w, ok := want[e.Name]
			if !ok {
				t.Fatalf("ls listed %q, not a lock of the test", e.Name)
			}
			if e.Kind != w.kind || e.Mode != w.mode {
				t.Errorf("%s: kind %q mode %q, want %q %q", e.Name, e.Kind, e.Mode, w.kind, w.mode)
			}
			if got := holderLines(e.Holders); !slices.Equal(got, w.holders) {
				t.Errorf("%s: holders %q, want %q", e.Name, got, w.holders)
			}
			if (e.Waiters == nil) != (w.waiters == nil) || (e.Waiters != nil && *e.Waiters != *w.waiters) {
				t.Errorf("%s: waiters %v, want %v", e.Name, deref(e.Waiters), deref(w.waiters))
			}
			if e.TTLMS <= 0 || e.TTLMS > lockkit.DefaultWatchdogTimeout.Milliseconds() {
				t.Errorf("%s: ttl_ms %d, want a live lease of at most 30 s", e.Name, e.TTLMS)
			}
			if e.Anomalies != 0 {
				t.Errorf("%s: %d anomalies, want none", e.Name, e.Anomalies)
			}
		}

		// The text table: one line per lock, in name order.
		out := c.ok(t, "ls", "--prefix", k.prefix)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[0], "NAME") {
			t.Fatalf("ls printed\n%s\nwant a header and 4 lines", out)
		}
		wantOrder := []string{k.re, k.sp, k.fa, k.rw}
		slices.Sort(wantOrder)
		for i, name := range wantOrder {
			if f := strings.Fields(lines[i+1]); f[0] != name {
				t.Errorf("line %d is %q, want lock %s", i+1, lines[i+1], name)
			}
		}
		reLine := lines[1+slices.Index(wantOrder, k.re)]
		for _, s := range []string{"reentrant", "re-owner(2)", " " + itoa(k.reM.Token()) + " "} {
			if !strings.Contains(reLine, s) {
				t.Errorf("ls line %q lacks %q", reLine, s)
			}
		}
		// A read-write hold shows as r:OWNER(COUNT) or w:OWNER(COUNT).
		rwLine := lines[1+slices.Index(wantOrder, k.rw)]
		for _, s := range []string{"rwlock", "read", "r:reader-1(1)", "r:reader-2(1)"} {
			if !strings.Contains(rwLine, s) {
				t.Errorf("ls line %q lacks %q", rwLine, s)
			}
		}

		// A pattern selects by name.
		c.okJSON(t, &entries, "ls", "--prefix", k.prefix, k.fa[:len(k.fa)-1]+"*")
		for _, e := range entries {
			if !strings.HasPrefix(e.Name, k.fa[:len(k.fa)-1]) {
				t.Errorf("ls %s* listed %s", k.fa[:len(k.fa)-1], e.Name)
			}
		}
		if !slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == k.fa }) {
			t.Errorf("ls %s* did not list %s", k.fa[:len(k.fa)-1], k.fa)
		}

		// A free lock is not listed.
		redistest.MustUnlock(t, k.spM)
		c.okJSON(t, &entries, "ls", "--prefix", k.prefix)
		if slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == k.sp }) {
			t.Errorf("ls lists %s after its release", k.sp)
		}
	})
}
