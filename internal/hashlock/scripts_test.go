package hashlock

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestScripts walks every documented return of the scripts on miniredis.
func TestScripts(t *testing.T) {
	mr, c := redistest.Mini(t)
	ctx := context.Background()
	k := internal.NewKeys("p", "n")
	int64Of := func(cmd *redis.Cmd) int64 {
		t.Helper()
		v, err := cmd.Int64()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	acquire := func(owner string) []int64 {
		t.Helper()
		v, err := acquireScript.Run(ctx, c, []string{k.Lock, k.Fence}, owner, 1000).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	release := func(owner string, token int64, id string) int64 {
		t.Helper()
		return int64Of(releaseScript.Run(ctx, c, []string{k.Lock, k.Released},
			owner, token, id, ReleaseWindow.Milliseconds(), k.Channel))
	}
	renew := func(owner string, token int64) int64 {
		t.Helper()
		return int64Of(renewScript.Run(ctx, c, []string{k.Lock}, owner, token, 1000))
	}
	force := func() int64 {
		t.Helper()
		return int64Of(forceScript.Run(ctx, c, []string{k.Lock}, k.Channel))
	}
	undo := func(owner string, token, count int64) int64 {
		t.Helper()
		return int64Of(undoScript.Run(ctx, c, []string{k.Lock}, owner, token, count, k.Channel))
	}
	steps := []struct {
		name string
		got  func() any
		want any
	}{
		{"fresh acquire mints token 1", func() any { return acquire("a") }, []int64{1, 1}},
		{"re-entry keeps token", func() any { return acquire("a") }, []int64{2, 1}},
		{"other owner gets pttl", func() any { return acquire("b")[0] }, int64(0)},
		{"renew by holder", func() any { return renew("a", 1) }, int64(1)},
		{"renew with stale token", func() any { return renew("a", 7) }, int64(0)},
		{"renew by other owner", func() any { return renew("b", 1) }, int64(0)},
		{"release by other owner", func() any { return release("b", 1, "x") }, int64(-1)},
		{"release with stale token", func() any { return release("a", 9, "x") }, int64(-1)},
		{"partial release", func() any { return release("a", 1, "u1") }, int64(1)},
		{"partial release retried", func() any { return release("a", 1, "u1") }, int64(1)},
		{"final release", func() any { return release("a", 1, "u2") }, int64(0)},
		{"final release retried", func() any { return release("a", 1, "u2") }, int64(0)},
		{"lock key deleted", func() any { return mr.Exists(k.Lock) }, false},
		{"next hold mints token 2", func() any { return acquire("b") }, []int64{1, 2}},
		{"released token of a still remembered", func() any { return release("a", 1, "u3") }, int64(0)},
		{"force unlock", func() any { return force() }, int64(1)},
		{"force unlock of free lock", func() any { return force() }, int64(0)},
		{"force-unlocked hold is gone", func() any { return release("b", 2, "u4") }, int64(-1)},
		{"undo without a hold", func() any { return undo("c", 0, 0) }, int64(0)},
		{"fresh hold to undo", func() any { return acquire("c") }, []int64{1, 3}},
		{"re-entry to undo", func() any { return acquire("c") }, []int64{2, 3}},
		{"undo cuts a re-entry back", func() any { return undo("c", 3, 1) }, int64(1)},
		{"count after the cut", func() any { return mr.HGet(k.Lock, "c") }, "1"},
		{"undo with nothing beyond the known count", func() any { return undo("c", 3, 1) }, int64(0)},
		{"undo deletes a hold of a stale token", func() any { return undo("c", 2, 1) }, int64(1)},
		{"lock key deleted by undo", func() any { return mr.Exists(k.Lock) }, false},
		{"unknown hold to undo", func() any { return acquire("c") }, []int64{1, 4}},
		{"undo deletes a hold the caller does not know", func() any { return undo("c", 0, 0) }, int64(1)},
		{"lock key deleted by the last undo", func() any { return mr.Exists(k.Lock) }, false},
	}
	for _, s := range steps {
		if got := s.got(); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
	// Released tokens are forgotten after the window.
	mr.FastForward(ReleaseWindow + time.Second)
	if v := release("a", 1, "u5"); v != -1 {
		t.Fatalf("release of a token past the window = %d, want -1", v)
	}
}
