package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
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
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		k := holdEveryKind(t, rc)
		c := cliFor(t, rc)
		lease := lockkit.DefaultWatchdogTimeout.Milliseconds()

		// A reentrant lock held twice, with a waiter in another process
		// (here: another Client, with a pub/sub connection of its own).
		other := redistest.Lockkit(t, rc, lockkit.WithPrefix(k.prefix))
		waitInBackground(t, reentrant.New(other, k.re).Lock)
		redistest.Eventually(t, 10*time.Second, "the reentrant waiter to subscribe", func() bool {
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

func TestShow_reports_anomalies(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		c := cliFor(t, rc)
		ctx := redistest.Ctx(t, 10*time.Second)
		prefix := "cli-" + redistest.Unique(t)
		n := names(t, rc, 3)

		// A hold without TTL and without its token.
		noTTL := keys(prefix, n[0]).Base
		if err := rc.HSet(ctx, noTTL, ":kind", "reentrant", "someone", "1").Err(); err != nil {
			t.Fatal(err)
		}
		// A hash of an unknown kind.
		if err := rc.HSet(ctx, keys(prefix, n[1]).Base, ":kind", "gizmo", "x", "1", ":t:x", "3").Err(); err != nil {
			t.Fatal(err)
		}
		// A fair queue entry without a deadline, behind a live one.
		fk := keys(prefix, n[2])
		if err := rc.ZAdd(ctx, fk.Sub("waiters"), redis.Z{Score: 1, Member: "alive"}, redis.Z{Score: 2, Member: "ghost"}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.ZAdd(ctx, fk.Sub("timeouts"), redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: "alive"}).Err(); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{fk.Sub("waiters"), fk.Sub("timeouts")} {
			rc.PExpire(ctx, key, time.Hour)
		}

		for _, tc := range []struct {
			name string
			want []string
		}{
			{n[0], []string{"has no TTL", `hold "someone" has no fencing token`}},
			{n[1], []string{`unknown kind "gizmo"`, "has no TTL"}},
			{n[2], []string{`queue entry "ghost" has no deadline`, "2 entries but 1 deadlines"}},
		} {
			l, entries := c.anomalies(t, prefix, tc.name, tc.want)
			if tc.name != n[2] && (len(entries) != 1 || entries[0].Anomalies != len(l.Anomalies)) {
				t.Errorf("ls %s: %+v, want its %d anomalies counted", tc.name, entries, len(l.Anomalies))
			}
		}
	})
}

func TestShow_reports_anomalies_of_latches_and_elections(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		c := cliFor(t, rc)
		ctx := redistest.Ctx(t, 10*time.Second)
		prefix := "cli-" + redistest.Unique(t)
		n := append(names(t, rc, 3), redistest.Unique(t)+"-a", redistest.Unique(t)+"-b")
		for _, tc := range []struct {
			name   string
			fields []any
			ttl    bool
			want   []string
		}{
			// A closed latch without TTL.
			{n[0], []any{":kind", "latch", "count", "2", ":d:x", "1"}, false,
				[]string{"has no TTL: the latch is never forgotten"}},
			// An open latch that kept a count-down id, and a field no
			// latch has.
			{n[1], []any{":kind", "latch", "count", "0", ":d:x", "1", "junk", "1"}, true,
				[]string{"open but keeps 1 count-down ids", `unknown field "junk"`}},
			// A latch without its count, and one with a negative count.
			{n[2], []any{":kind", "latch", ":d:x", "1"}, true, []string{"no 'count' field"}},
			{n[3], []any{":kind", "latch", "count", "-1"}, true, []string{`count is "-1"`}},
			// An election without TTL, its leader's hold taken twice,
			// and a value without its hold.
			{n[4], []any{":kind", "election", "o", "2", ":t:o", "5", ":v:o", "x", ":v:ghost", "y"}, false,
				[]string{"has no TTL", `hold "o" has count 2`, "field :v:ghost without its hold"}},
		} {
			key := keys(prefix, tc.name).Base
			if err := rc.HSet(ctx, key, tc.fields...).Err(); err != nil {
				t.Fatal(err)
			}
			if tc.ttl {
				if err := rc.PExpire(ctx, key, time.Hour).Err(); err != nil {
					t.Fatal(err)
				}
			}
			l, entries := c.anomalies(t, prefix, tc.name, tc.want)
			if len(l.Anomalies) != len(tc.want) {
				t.Errorf("show %s: anomalies %q, want %d", tc.name, l.Anomalies, len(tc.want))
			}
			if len(entries) != 1 || entries[0].Anomalies != len(l.Anomalies) {
				t.Errorf("ls %s: %+v, want its %d anomalies counted", tc.name, entries, len(l.Anomalies))
			}
		}
	})
}

// anomalies runs show on lock name, in JSON and in text, and ls on it:
// it checks that show reports an anomaly saying each of want and that its
// text counts the anomalies, and returns what show and ls decoded.
func (c cli) anomalies(t *testing.T, prefix, name string, want []string) (Lock, []Entry) {
	t.Helper()
	var l Lock
	c.okJSON(t, &l, "show", "--prefix", prefix, name)
	for _, w := range want {
		if !slices.ContainsFunc(l.Anomalies, func(a string) bool { return strings.Contains(a, w) }) {
			t.Errorf("show %s: anomalies %q, want one saying %q", name, l.Anomalies, w)
		}
	}
	out := c.ok(t, "show", "--prefix", prefix, name)
	if !strings.Contains(out, "anomalies: "+itoa(int64(len(l.Anomalies)))) {
		t.Errorf("show %s printed\n%s\nwant %d anomalies", name, out, len(l.Anomalies))
	}
	var entries []Entry
	c.okJSON(t, &entries, "ls", "--prefix", prefix, name)
	return l, entries
}
