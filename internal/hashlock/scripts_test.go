package hashlock

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// TestScripts walks every documented return of the scripts on miniredis.
func TestScripts(t *testing.T) {
	mr, c := redistest.Mini(t)
	ctx := context.Background()
	lock, fence, released, ch := "p:{n}", "p:{n}:fence", "p:{n}:released", "p:{n}:ch"
	acquire := func(owner string) []int64 {
		t.Helper()
		v, err := acquireScript.Run(ctx, c, []string{lock, fence}, owner, 1000).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	release := func(owner string, token int64, id string) int64 {
		t.Helper()
		v, err := releaseScript.Run(ctx, c, []string{lock, released}, owner, token, id, 10000, ch).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	renew := func(owner string, token int64) int64 {
		t.Helper()
		v, err := renewScript.Run(ctx, c, []string{lock}, owner, token, 1000).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return v
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
		{"lock key deleted", func() any { return mr.Exists(lock) }, false},
		{"next hold mints token 2", func() any { return acquire("b") }, []int64{1, 2}},
		{"released token of a still remembered", func() any { return release("a", 1, "u3") }, int64(0)},
		{"force unlock", func() any {
			v, _ := forceScript.Run(ctx, c, []string{lock}, ch).Int64()
			return v
		}, int64(1)},
		{"force unlock of free lock", func() any {
			v, _ := forceScript.Run(ctx, c, []string{lock}, ch).Int64()
			return v
		}, int64(0)},
		{"force-unlocked hold is gone", func() any { return release("b", 2, "u4") }, int64(-1)},
	}
	for _, s := range steps {
		got := s.got()
		if !equal(got, s.want) {
			t.Fatalf("%s: got %v, want %v", s.name, got, s.want)
		}
	}
	// Released tokens are forgotten after the window.
	mr.FastForward(11 * time.Second)
	if v := release("a", 1, "u5"); v != -1 {
		t.Fatalf("release of a token past the window = %d, want -1", v)
	}
}

func equal(a, b any) bool {
	as, ok1 := a.([]int64)
	bs, ok2 := b.([]int64)
	if ok1 && ok2 {
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			if as[i] != bs[i] {
				return false
			}
		}
		return true
	}
	return a == b
}
