package redistest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestAssertClean_allows_only_what_a_freed_lock_keeps(t *testing.T) {
	ForEachBackend(t, Backends(), func(t *testing.T, c redis.UniversalClient) {
		ctx := Ctx(t, 10*time.Second)
		name := Unique(t)
		base := "lockkit:{" + name + "}"
		set := func(key string, ttl time.Duration) {
			t.Helper()
			if err := c.Set(ctx, key, 1, ttl).Err(); err != nil {
				t.Fatal(err)
			}
		}
		set(base+":fence", 0)
		set(base+":released", time.Minute)
		set("unrelated", 0)
		wantNoFailure(t, func(tb testing.TB) { AssertClean(tb, c, name) })

		set(base, time.Minute)
		set(base+":released", 0) // no TTL: it would never go
		got := failures(t, func(tb testing.TB) { AssertClean(tb, c, name) })
		for _, want := range []string{base + " (TTL ", base + ":released (no TTL)"} {
			if !strings.Contains(got, want) {
				t.Fatalf("AssertClean reported %q; want it to name %q", got, want)
			}
		}
		if strings.Contains(got, ":fence") || strings.Contains(got, "unrelated") {
			t.Fatalf("AssertClean reported %q; the fencing counter and other locks' keys are fine", got)
		}
	})
}

func TestNamesOnDistinctMasters(t *testing.T) {
	cc := StartCluster(t).Client(t)
	names := NamesOnDistinctMasters(t, cc, 3)
	masters := map[string]bool{}
	for _, name := range names {
		node, err := cc.MasterForKey(context.Background(), "lockkit:{"+name+"}")
		if err != nil {
			t.Fatal(err)
		}
		masters[node.Options().Addr] = true
	}
	if len(names) != 3 || len(masters) != 3 {
		t.Fatalf("names %q live on %d masters, want 3 names on 3", names, len(masters))
	}
	wantFailure(t, func(tb testing.TB) { NamesOnDistinctMasters(tb, cc, 4) }, "found no 4 names on distinct masters")
}
