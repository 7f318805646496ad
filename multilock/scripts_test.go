package multilock

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/hashlock"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestScripts_documented_returns walks each RedLock node script, and the
// hash lock's renewal its holds use, through the returns their headers
// document, on miniredis.
func TestScripts_documented_returns(t *testing.T) {
	ctx := context.Background()
	mr, c := redistest.Mini(t)
	keys := []string{"lockkit:{s}", "lockkit:{s}:fence"}
	lock := keys[:1]
	run := func(t *testing.T, want []int64, got []int64, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("reply %v, want %v", got, want)
		}
		for i := range want {
			if want[i] >= 0 && got[i] != want[i] {
				t.Fatalf("reply %v, want %v", got, want)
			}
		}
	}
	// A node's hold has the hash lock's layout, so the watchdog renews it
	// with the hash lock's renewal.
	renew := func(token int64) (int64, error) {
		l := hashlock.RenewLease(keys[0], "me", token, 5*time.Second)
		return l.Script.Run(ctx, c, l.Keys, l.Args...).Int64()
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"acquire free lock mints token 1", func(t *testing.T) {
			got, err := acquireScript.Run(ctx, c, keys, "me", 1000).Int64Slice()
			run(t, []int64{1, 1}, got, err)
		}},
		{"acquire over own hold replaces it with token 2", func(t *testing.T) {
			got, err := acquireScript.Run(ctx, c, keys, "me", 1000).Int64Slice()
			run(t, []int64{1, 2}, got, err)
			if v := mr.HGet(keys[0], ":token"); v != "2" {
				t.Fatalf(":token = %q", v)
			}
		}},
		{"acquire held by another owner returns its pttl", func(t *testing.T) {
			got, err := acquireScript.Run(ctx, c, keys, "you", 1000).Int64Slice()
			run(t, []int64{0, -1}, got, err)
			if got[1] <= 0 || got[1] > 1000 {
				t.Fatalf("pttl %d", got[1])
			}
		}},
		{"renew with the hold's token extends it", func(t *testing.T) {
			mr.FastForward(900 * time.Millisecond)
			n, err := renew(2)
			if n != 1 || err != nil || mr.TTL(keys[0]) != 5*time.Second {
				t.Fatalf("renew = %d, %v; ttl %v", n, err, mr.TTL(keys[0]))
			}
		}},
		{"renew with another token finds the hold gone", func(t *testing.T) {
			n, err := renew(1)
			if n != 0 || err != nil {
				t.Fatalf("renew = %d, %v", n, err)
			}
		}},
		{"raise brings a lower counter up", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 2, 40).Int64()
			if v, _ := mr.Get(keys[1]); n != 1 || err != nil || v != "40" {
				t.Fatalf("raise = %d, %v; counter %q", n, err, v)
			}
		}},
		{"raise leaves a higher counter alone", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 2, 7).Int64()
			if v, _ := mr.Get(keys[1]); n != 1 || err != nil || v != "40" {
				t.Fatalf("raise = %d, %v; counter %q", n, err, v)
			}
		}},
		{"raise of a replaced hold does nothing", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 1, 99).Int64()
			if v, _ := mr.Get(keys[1]); n != 0 || err != nil || v != "40" {
				t.Fatalf("raise = %d, %v; counter %q", n, err, v)
			}
		}},
		{"release with another token does nothing", func(t *testing.T) {
			n, err := releaseScript.Run(ctx, c, lock, "me", "1").Int64()
			if n != 0 || err != nil || !mr.Exists(keys[0]) {
				t.Fatalf("release = %d, %v", n, err)
			}
		}},
		{"release of another owner's hold does nothing", func(t *testing.T) {
			n, err := releaseScript.Run(ctx, c, lock, "you", "").Int64()
			if n != 0 || err != nil || !mr.Exists(keys[0]) {
				t.Fatalf("release = %d, %v", n, err)
			}
		}},
		{"release with the hold's token frees it", func(t *testing.T) {
			n, err := releaseScript.Run(ctx, c, lock, "me", "2").Int64()
			if n != 1 || err != nil || mr.Exists(keys[0]) {
				t.Fatalf("release = %d, %v", n, err)
			}
		}},
		{"release of a free lock returns 0", func(t *testing.T) {
			n, err := releaseScript.Run(ctx, c, lock, "me", "2").Int64()
			if n != 0 || err != nil {
				t.Fatalf("release = %d, %v", n, err)
			}
		}},
		{"acquire after a raise mints above the raised counter", func(t *testing.T) {
			got, err := acquireScript.Run(ctx, c, keys, "me", 1000).Int64Slice()
			run(t, []int64{1, 41}, got, err)
		}},
		{"release without a token frees any hold of the owner", func(t *testing.T) {
			n, err := releaseScript.Run(ctx, c, lock, "me", "").Int64()
			if n != 1 || err != nil || mr.Exists(keys[0]) {
				t.Fatalf("release = %d, %v", n, err)
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.do) {
			return
		}
	}
}
