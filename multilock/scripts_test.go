package multilock

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestScripts_documented_returns walks each script a RedLock node runs
// (the hash lock's, with kind 'redlock', and raise) through the returns
// its header documents, on miniredis.
func TestScripts_documented_returns(t *testing.T) {
	ctx := context.Background()
	mr, c := redistest.Mini(t)
	keys := []string{"lockkit:{s}", "lockkit:{s}:fence", "lockkit:{s}:released"}
	hash, fence := keys[0], keys[1]
	const window = 10_000 // ms
	acquire := func(owner, fresh string) ([]int64, error) {
		return lua.Mutex.Acquire.Run(ctx, c, keys, owner, 1000, "redlock", fresh).Int64Slice()
	}
	release := func(token int64, id string) (int64, error) {
		return lua.Mutex.Release.Run(ctx, c, keys, "me", token, id, window, noChannel).Int64()
	}
	wantReply := func(t *testing.T, got []int64, err error, count, token int64) {
		t.Helper()
		if err != nil || len(got) != 2 || got[0] != count || (token >= 0 && got[1] != token) {
			t.Fatalf("reply %v, %v; want {%d, %d}", got, err, count, token)
		}
	}
	wantInt := func(t *testing.T, got int64, err error, want int64) {
		t.Helper()
		if err != nil || got != want {
			t.Fatalf("reply %d, %v; want %d", got, err, want)
		}
	}
	wantCount := func(t *testing.T, want string) {
		t.Helper()
		if got := mr.HGet(hash, "me"); got != want {
			t.Fatalf("hold count %q, want %q", got, want)
		}
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"acquire of a free lock mints token 1 and marks the kind", func(t *testing.T) {
			got, err := acquire("me", "")
			wantReply(t, got, err, 1, 1)
			if k := mr.HGet(hash, ":kind"); k != "redlock" {
				t.Fatalf(":kind = %q", k)
			}
		}},
		{"acquire under a shared owner id re-enters", func(t *testing.T) {
			got, err := acquire("me", "")
			wantReply(t, got, err, 2, 1)
		}},
		{"acquire under the value's own id replaces the stray hold", func(t *testing.T) {
			got, err := acquire("me", "1")
			wantReply(t, got, err, 1, 2)
			wantCount(t, "1")
		}},
		{"acquire held by another owner returns its pttl", func(t *testing.T) {
			got, err := acquire("you", "")
			wantReply(t, got, err, 0, -1)
			if got[1] <= 0 || got[1] > 1000 {
				t.Fatalf("pttl %d", got[1])
			}
		}},
		{"acquire of a name another kind holds is refused", func(t *testing.T) {
			other := []string{"lockkit:{o}", "lockkit:{o}:fence", "lockkit:{o}:released"}
			mr.HSet(other[0], ":kind", "reentrant", "x", "1")
			_, err := lua.Mutex.Acquire.Run(ctx, c, other, "me", 1000, "redlock", "1").Result()
			if !redis.HasErrorPrefix(err, "WRONGKIND") {
				t.Fatalf("err = %v, want WRONGKIND", err)
			}
			if mr.HGet(other[0], "me") != "" {
				t.Fatal("the other kind's hash was changed")
			}
		}},
		{"renew with the hold's token extends it", func(t *testing.T) {
			mr.FastForward(900 * time.Millisecond)
			n, err := lua.Mutex.Renew.Run(ctx, c, keys, "me", 2, 5000).Int64()
			wantInt(t, n, err, 1)
			if ttl := mr.TTL(hash); ttl != 5*time.Second {
				t.Fatalf("ttl %v", ttl)
			}
		}},
		{"renew with another token finds the hold gone", func(t *testing.T) {
			n, err := lua.Mutex.Renew.Run(ctx, c, keys, "me", 1, 5000).Int64()
			wantInt(t, n, err, 0)
		}},
		{"raise brings a lower counter up", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 2, 40).Int64()
			wantInt(t, n, err, 1)
			if v, _ := mr.Get(fence); v != "40" {
				t.Fatalf("counter %q", v)
			}
		}},
		{"raise leaves a higher counter alone", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 2, 7).Int64()
			wantInt(t, n, err, 1)
			if v, _ := mr.Get(fence); v != "40" {
				t.Fatalf("counter %q", v)
			}
		}},
		{"raise of a replaced hold does nothing", func(t *testing.T) {
			n, err := raiseScript.Run(ctx, c, keys, "me", 1, 99).Int64()
			wantInt(t, n, err, 0)
			if v, _ := mr.Get(fence); v != "40" {
				t.Fatalf("counter %q", v)
			}
		}},
		{"release with another token finds the hold not there", func(t *testing.T) {
			n, err := release(1, "u1")
			wantInt(t, n, err, -1)
			if !mr.Exists(hash) {
				t.Fatal("the hold was freed")
			}
		}},
		{"release with the hold's token frees the lock", func(t *testing.T) {
			n, err := release(2, "u2")
			wantInt(t, n, err, 0)
			if mr.Exists(hash) {
				t.Fatal("the hash is still there")
			}
		}},
		{"a retried release reports success again", func(t *testing.T) {
			n, err := release(2, "u2")
			wantInt(t, n, err, 0)
		}},
		{"acquire after a raise mints above the raised counter", func(t *testing.T) {
			got, err := acquire("me", "1")
			wantReply(t, got, err, 1, 41)
		}},
		{"release of one of two acquires keeps the hold, once per unlock id", func(t *testing.T) {
			got, err := acquire("me", "")
			wantReply(t, got, err, 2, 41)
			n, err := release(41, "u3")
			wantInt(t, n, err, 1)
			n, err = release(41, "u3")
			wantInt(t, n, err, 1)
			wantCount(t, "1")
			n, err = release(41, "u4")
			wantInt(t, n, err, 0)
		}},
		{"undo with nothing to undo returns 0", func(t *testing.T) {
			n, err := lua.Mutex.Undo.Run(ctx, c, keys, "me", 0, 0, noChannel, "redlock").Int64()
			wantInt(t, n, err, 0)
		}},
		{"undo cuts a known hold back to its known count", func(t *testing.T) {
			got, err := acquire("me", "1")
			wantReply(t, got, err, 1, 42)
			got, err = acquire("me", "")
			wantReply(t, got, err, 2, 42)
			n, err := lua.Mutex.Undo.Run(ctx, c, keys, "me", 42, 1, noChannel, "redlock").Int64()
			wantInt(t, n, err, 1)
			wantCount(t, "1")
		}},
		{"undo frees a hold the caller does not know of", func(t *testing.T) {
			n, err := lua.Mutex.Undo.Run(ctx, c, keys, "me", 0, 0, noChannel, "redlock").Int64()
			wantInt(t, n, err, 1)
			if mr.Exists(hash) {
				t.Fatal("the hash is still there")
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.do) {
			return
		}
	}
}
