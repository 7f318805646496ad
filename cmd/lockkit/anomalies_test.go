package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestShow_reports_anomalies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		n := names(t, f.rc, 3)

		// A hold without TTL and without its token.
		noTTL := keys(f.prefix, n[0]).Base
		if err := f.rc.HSet(f.ctx, noTTL, ":kind", "reentrant", "someone", "1").Err(); err != nil {
			t.Fatal(err)
		}
		// A hash of an unknown kind.
		if err := f.rc.HSet(f.ctx, keys(f.prefix, n[1]).Base, ":kind", "gizmo", "x", "1", ":t:x", "3").Err(); err != nil {
			t.Fatal(err)
		}
		// A fair queue entry without a deadline, behind a live one.
		fk := keys(f.prefix, n[2])
		if err := f.rc.ZAdd(f.ctx, fk.Sub("waiters"), redis.Z{Score: 1, Member: "alive"}, redis.Z{Score: 2, Member: "ghost"}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := f.rc.ZAdd(f.ctx, fk.Sub("timeouts"), redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: "alive"}).Err(); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{fk.Sub("waiters"), fk.Sub("timeouts")} {
			f.rc.PExpire(f.ctx, key, time.Hour)
		}

		for _, tc := range []struct {
			name string
			want []string
		}{
			{n[0], []string{"has no TTL", `hold "someone" has no fencing token`}},
			{n[1], []string{`unknown kind "gizmo"`, "has no TTL"}},
			{n[2], []string{`queue entry "ghost" has no deadline`, "2 entries but 1 deadlines"}},
		} {
			l, entries := f.anomalies(t, tc.name, tc.want)
			if tc.name != n[2] && (len(entries) != 1 || entries[0].Anomalies != len(l.Anomalies)) {
				t.Errorf("ls %s: %+v, want its %d anomalies counted", tc.name, entries, len(l.Anomalies))
			}
		}
	})
}

func TestShow_reports_anomalies_of_latches_and_elections(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		n := append(names(t, f.rc, 3), redistest.Unique(t)+"-a", redistest.Unique(t)+"-b")
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
			key := keys(f.prefix, tc.name).Base
			if err := f.rc.HSet(f.ctx, key, tc.fields...).Err(); err != nil {
				t.Fatal(err)
			}
			if tc.ttl {
				if err := f.rc.PExpire(f.ctx, key, time.Hour).Err(); err != nil {
					t.Fatal(err)
				}
			}
			l, entries := f.anomalies(t, tc.name, tc.want)
			if len(l.Anomalies) != len(tc.want) {
				t.Errorf("show %s: anomalies %q, want %d", tc.name, l.Anomalies, len(tc.want))
			}
			if len(entries) != 1 || entries[0].Anomalies != len(l.Anomalies) {
				t.Errorf("ls %s: %+v, want its %d anomalies counted", tc.name, entries, len(l.Anomalies))
			}
		}
	})
}

// anomalies runs show on lock name under the fixture's prefix, in JSON
// and in text, and ls on it: it checks that show reports an anomaly
// saying each of want and that its text counts the anomalies, and returns
// what show and ls decoded.
func (f *fixture) anomalies(t *testing.T, name string, want []string) (Lock, []Entry) {
	t.Helper()
	var l Lock
	f.okJSON(t, &l, "show", "--prefix", f.prefix, name)
	for _, w := range want {
		if !slices.ContainsFunc(l.Anomalies, func(a string) bool { return strings.Contains(a, w) }) {
			t.Errorf("show %s: anomalies %q, want one saying %q", name, l.Anomalies, w)
		}
	}
	out := f.ok(t, "show", "--prefix", f.prefix, name)
	if !strings.Contains(out, "anomalies: "+itoa(int64(len(l.Anomalies)))) {
		t.Errorf("show %s printed\n%s\nwant %d anomalies", name, out, len(l.Anomalies))
	}
	var entries []Entry
	f.okJSON(t, &entries, "ls", "--prefix", f.prefix, name)
	return l, entries
}
