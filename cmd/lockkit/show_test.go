package main

import (
	"slices"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/reentrant"
)

// wantSubscribers fails the test unless l counts n subscribers on the
// channel whose role is role.
func wantSubscribers(t *testing.T, l *Lock, role string, n int64) {
	t.Helper()
	i := slices.IndexFunc(l.Subscribers, func(s Subscribers) bool { return s.Role == role })
	if i < 0 || l.Subscribers[i].Count != n {
		t.Errorf("%s: subscribers %+v, want %d on the %q channel", l.Name, l.Subscribers, n, role)
	}
}

// wantNoAnomalies fails the test if l lists anomalies.
func wantNoAnomalies(t *testing.T, l *Lock) {
	t.Helper()
	if len(l.Anomalies) != 0 {
		t.Errorf("%s: anomalies %q, want none", l.Name, l.Anomalies)
	}
}

func TestShow_decodes_every_kind_in_server_time(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		k, rc, c := holdEveryKind(t, f), f.rc, f.cli
		lease := lockkit.DefaultWatchdogTimeout.Milliseconds()

		// A reentrant lock held twice, with a waiter in another process
		// (here: another Client, with a pub/sub connection of its own).
		other := f.process(t)
		waitingInBackground(t, "the reentrant waiter to subscribe", reentrant.New(other, k.re).Lock, func() bool {
			return reentrantWaiting(t, rc, k.prefix, k.re)
		})
		var l Lock
		c.okJSON(t, &l, "show", "--prefix", k.prefix, k.re)
		if l.Name != k.re || l.Key != keys(k.prefix, k.re).Base || l.Kind != "reentrant" || !l.Held || l.Mode != "exclusive" {
			t.Errorf("show %s: %+v", k.re, l)
		}
		if got, want := holderLines(l.Holders), []string{"re-owner exclusive 2 " + itoa(k.reM.Token())}; !slices.Equal(got, want) {
			t.Errorf("holders %q, want %q", got, want)
		}
		if l.TTLMS <= 0 || l.TTLMS > lease || l.Holders[0].LeaseMS != l.TTLMS {
			t.Errorf("ttl_ms %d, holder lease_ms %d: want the live lease, twice", l.TTLMS, l.Holders[0].LeaseMS)
		}
		if l.Fence != k.reM.Token() {
			t.Errorf("fence %d, want the last token %d", l.Fence, k.reM.Token())
		}
		if d := time.Since(time.UnixMilli(l.ServerTimeMS)); d < -time.Minute || d > time.Minute {
			t.Errorf("server_time_ms %d is %v off the clock", l.ServerTimeMS, d)
		}
		// The waiting process: registered, on its own channel, where a
		// release wakes one process; on the lock's channel on a Cluster.
		waitersRole, waitersRe := "waiters", `(?m)^\s+\S+:ch\s+waiters\s+1$`
		if id := other.Notifier().ID(); core.OneProcess(rc) {
			waitersRole, waitersRe = "process "+id, `(?m)^\s+\S+:ch:`+id+`\s+process `+id+`\s+1$`
			if len(l.Processes) != 1 || l.Processes[0].ID != id || l.Processes[0].WaitingMS < 0 {
				t.Errorf("processes %+v, want the waiting process %s", l.Processes, id)
			}
		}
		wantSubscribers(t, &l, waitersRole, 1)
		wantNoAnomalies(t, &l)

		// The fair lock: its holder, and its queue with the waiter's
		// deadline (the waiter timeout is 5 s) and own channel.
		c.okJSON(t, &l, "show", "--prefix", k.prefix, k.fa)
		if l.Kind != "fair" || l.Queue == nil || l.Queue.Length != 1 || len(l.Queue.Waiters) != 1 {
			t.Fatalf("show %s: kind %q queue %+v", k.fa, l.Kind, l.Queue)
		}
		w := l.Queue.Waiters[0]
		if w.Owner != "fair-waiter" || w.Expired || w.LeftMS == nil || *w.LeftMS <= 0 || *w.LeftMS > 5000 ||
			*w.DeadlineAtMS != l.ServerTimeMS+*w.LeftMS {
			t.Errorf("waiter %+v (left %v), want fair-waiter with a live deadline within 5 s of %d", w, deref(w.LeftMS), l.ServerTimeMS)
		}
		if got, want := holderLines(l.Holders), []string{"fair-owner exclusive 1 " + itoa(k.faM.Token())}; !slices.Equal(got, want) {
			t.Errorf("holders %q, want %q", got, want)
		}
		wantSubscribers(t, &l, "waiter fair-waiter", 1)
		wantNoAnomalies(t, &l)

		// The read-write lock: two readers, each with its own lease, and
		// the waiting writer's intent.
		c.okJSON(t, &l, "show", "--prefix", k.prefix, k.rw)
		want := []string{"reader-1 read 1 " + itoa(k.reader1.RToken()), "reader-2 read 1 " + itoa(k.reader2.RToken())}
		if got := holderLines(l.Holders); l.Kind != "rwlock" || l.Mode != "read" || !slices.Equal(got, want) {
			t.Errorf("show %s: kind %q mode %q holders %q, want rwlock read %q", k.rw, l.Kind, l.Mode, got, want)
		}
		for _, h := range l.Holders {
			if h.LeaseMS <= 0 || h.LeaseMS > lease || h.Expired {
				t.Errorf("holder %+v: want a live lease of its own", h)
			}
		}
		if l.Writers == nil || l.Writers.Waiting != 1 || len(l.Writers.Intents) != 1 || l.Writers.Intents[0].Owner != "writer" {
			t.Errorf("writers %+v, want the intent of writer", l.Writers)
		}
		writersRole := "writers"
		if id := k.lc.Notifier().ID(); core.OneProcess(rc) {
			writersRole = "writers of process " + id
			if len(l.Processes) != 1 || l.Processes[0].ID != id {
				t.Errorf("processes %+v, want the writer's process %s", l.Processes, id)
			}
		}
		wantSubscribers(t, &l, writersRole, 1)
		wantNoAnomalies(t, &l)

		// The text report says the same.
		out := c.ok(t, "show", "--prefix", k.prefix, k.re)
		for _, re := range []string{`(?m)^kind\s+reentrant$`, `(?m)^state\s+exclusive, lease \d`, `(?m)^holders: 1$`,
			`(?m)^\s+re-owner\s+exclusive\s+2\s+` + itoa(k.reM.Token()) + `\s`, waitersRe, `(?m)^anomalies: none$`} {
			if !matches(re, out) {
				t.Errorf("show %s printed\n%s\nwant a line matching %s", k.re, out, re)
			}
		}
		out = c.ok(t, "show", "--prefix", k.prefix, k.fa)
		if !matches(`(?m)^\s+1\s+fair-waiter\s+\d+\s+in \d`, out) {
			t.Errorf("show %s printed\n%s\nwant the queue", k.fa, out)
		}

		// A free lock is free.
		c.okJSON(t, &l, "show", "--prefix", k.prefix, "never-taken")
		if l.Held || l.Kind != "" || l.Mode != "free" || l.TTLMS != -2 || len(l.Holders) != 0 {
			t.Errorf("show of a free lock: %+v", l)
		}
		wantNoAnomalies(t, &l)
	})
}
