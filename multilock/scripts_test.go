package multilock

import (
	"context"
	"fmt"
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
	// The server clock stands still at us µs: a fresh hold's token is us
	// while the counter is behind it, else the counter + 1.
	const us = 1_700_000_000_000_000
	mr.SetTime(time.UnixMicro(us))
	keys := []string{"lockkit:{s}", "lockkit:{s}:fence", "lockkit:{s}:released", "lockkit:{s}:procs", "lockkit:{s}:turn"}
	hash, fence := keys[0], keys[1]
	const window = 10_000 // ms
	wantInt := func(t *testing.T, got int64, err error, want int64) {
		t.Helper()
		if err != nil || got != want {
			t.Fatalf("reply %d, %v; want %d", got, err, want)
		}
	}
	// acquire, release, renew and undo run their script for owner "me"
	// (acquire for owner) and check its reply; acquire's is {count, token},
	// where a token below 0 stands for any.
	attempts := 0 // the n-th acquire has attempt id "aN"
	acquire := func(t *testing.T, owner string, count, token int64) []int64 {
		t.Helper()
		attempts++
		id := fmt.Sprintf("a%d", attempts)
		got, err := lua.Mutex.Acquire.Run(ctx, c, keys, owner, 1000, id, "redlock").Int64Slice()
		if err != nil || len(got) != 2 || got[0] != count || (token >= 0 && got[1] != token) {
			t.Fatalf("reply %v, %v; want {%d, %d}", got, err, count, token)
		}
		return got
	}
	release := func(t *testing.T, token int64, id string, want int64) {
		t.Helper()
		n, err := lua.Mutex.Release.Run(ctx, c, keys, "me", token, id, window, noChannel).Int64()
		wantInt(t, n, err, want)
	}
	renew := func(t *testing.T, token, want int64) {
		t.Helper()
		n, err := lua.Mutex.Renew.Run(ctx, c, keys, "me", token, 5000).Int64()
		wantInt(t, n, err, want)
	}
	undo := func(t *testing.T, token, count, want int64) {
		t.Helper()
		n, err := lua.Mutex.Undo.Run(ctx, c, keys, "me", token, count, "", noChannel, "redlock").Int64()
		wantInt(t, n, err, want)
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
		{"acquire of a free lock mints the server time in µs and marks the kind", func(t *testing.T) {
			acquire(t, "me", 1, us)
			if v, _ := mr.Get(fence); v != fmt.Sprint(us) {
				t.Fatalf("counter %q, want the token %d", v, us)
			}
			if k := mr.HGet(hash, ":kind"); k != "redlock" {
				t.Fatalf(":kind = %q", k)
			}
		}},
		{"acquire under a shared owner id re-enters", func(t *testing.T) { acquire(t, "me", 2, us) }},
		{"undo with no known hold removes a stray one, and a new acquire mints a new token", func(t *testing.T) {
			undo(t, 0, 0, 1)
			acquire(t, "me", 1, us+1) // the clock stands still: counter + 1
			wantCount(t, "1")
		}},
		{"acquire held by another owner returns its pttl", func(t *testing.T) {
			if got := acquire(t, "you", 0, -1); got[1] <= 0 || got[1] > 1000 {
				t.Fatalf("pttl %d", got[1])
			}
		}},
		{"acquire of a name another kind holds is refused", func(t *testing.T) {
			other := []string{"lockkit:{o}", "lockkit:{o}:fence", "lockkit:{o}:released", "lockkit:{o}:procs", "lockkit:{o}:turn"}
			mr.HSet(other[0], ":kind", "reentrant", "x", "1")
			_, err := lua.Mutex.Acquire.Run(ctx, c, other, "me", 1000, "a0", "redlock").Result()
			if !redis.HasErrorPrefix(err, "WRONGKIND") {
				t.Fatalf("err = %v, want WRONGKIND", err)
			}
			if mr.HGet(other[0], "me") != "" {
				t.Fatal("the other kind's hash was changed")
			}
		}},
		{"renew with the hold's token extends it", func(t *testing.T) {
			mr.FastForward(900 * time.Millisecond)
			renew(t, us+1, 1)
			if ttl := mr.TTL(hash); ttl != 5*time.Second {
				t.Fatalf("ttl %v", ttl)
			}
		}},
		{"renew with another token finds the hold gone", func(t *testing.T) { renew(t, us, 0) }},
		{"raise brings a lower counter up, leaves a higher one alone, and does nothing for a replaced hold", func(t *testing.T) {
			for _, r := range []struct{ token, counter, want int64 }{
				{us + 1, us + 40, 1}, // above the counter: it comes up
				{us + 1, 7, 1},       // below: the counter stays at us + 40
				{us, us + 99, 0},     // token us's hold was replaced: nothing changes
			} {
				n, err := raiseScript.Run(ctx, c, keys, "me", r.token, r.counter).Int64()
				wantInt(t, n, err, r.want)
				if v, _ := mr.Get(fence); v != fmt.Sprint(us+40) {
					t.Fatalf("raise(%d, %d): counter %q, want %d", r.token, r.counter, v, us+40)
				}
			}
		}},
		{"release with another token finds the hold not there", func(t *testing.T) {
			release(t, us, "u1", -1)
			if !mr.Exists(hash) {
				t.Fatal("the hold was freed")
			}
		}},
		{"release with the hold's token frees the lock", func(t *testing.T) {
			release(t, us+1, "u2", 0)
			if mr.Exists(hash) {
				t.Fatal("the hash is still there")
			}
		}},
		{"a retried release reports success again", func(t *testing.T) { release(t, us+1, "u2", 0) }},
		{"acquire after a raise mints above the raised counter", func(t *testing.T) { acquire(t, "me", 1, us+41) }},
		{"release of one of two acquires keeps the hold, once per unlock id", func(t *testing.T) {
			acquire(t, "me", 2, us+41)
			release(t, us+41, "u3", 1)
			release(t, us+41, "u3", 1)
			wantCount(t, "1")
			release(t, us+41, "u4", 0)
		}},
		{"undo with nothing to undo returns 0", func(t *testing.T) { undo(t, 0, 0, 0) }},
		{"undo cuts a known hold back to its known count", func(t *testing.T) {
			acquire(t, "me", 1, us+42)
			acquire(t, "me", 2, us+42)
			undo(t, us+42, 1, 1)
			wantCount(t, "1")
		}},
		{"undo frees a hold the caller does not know of", func(t *testing.T) {
			undo(t, 0, 0, 1)
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
