package fair

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// scriptEnv is one fair lock on miniredis with the server clock stopped at
// now, and a pattern subscription that records what the scripts publish
// on the waiters' channels.
type scriptEnv struct {
	t     *testing.T
	mr    *miniredis.Miniredis
	c     *redis.Client
	hash  string   // the lock's hash
	keys  []string // the KEYS of every script
	chans string   // prefix of the waiters' channels
	now   int64    // server time in ms
	ps    *redis.PubSub

	attempts int // acquires sent: the n-th has attempt id "aN"
}

const (
	lease  = 30 * time.Second
	wt     = 5 * time.Second
	window = 10 * time.Second
)

func newScriptEnv(t *testing.T) *scriptEnv {
	mr, c := redistest.Mini(t)
	k := core.NewKeys(lockkit.DefaultPrefix, "L", false)
	e := &scriptEnv{
		t: t, mr: mr, c: c, now: 1_700_000_000_000,
		hash:  k.Base,
		keys:  []string{k.Base, k.Fence, k.Released, k.Sub("waiters"), k.Sub("timeouts")},
		chans: k.Sub("ch") + ":",
	}
	mr.SetTime(time.UnixMilli(e.now))
	e.ps = c.PSubscribe(context.Background(), e.chans+"*")
	t.Cleanup(func() { e.ps.Close() })
	if _, err := e.ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

// us is the server time in µs: the token of a fresh hold while the fencing
// counter is behind the clock.
func (e *scriptEnv) us() int64 { return e.now * 1000 }

func (e *scriptEnv) queueKey() string    { return e.keys[3] }
func (e *scriptEnv) timeoutsKey() string { return e.keys[4] }

func (e *scriptEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// hold makes owner hold the lock count times with token, as hold_new and
// hold_reenter leave it.
func (e *scriptEnv) hold(owner string, count, token int64) {
	e.c.HSet(e.ctx(), e.hash, ":kind", "fair", owner, count, ":t:"+owner, token)
	e.c.PExpire(e.ctx(), e.hash, lease)
}

// queued puts ids at the end of the queue, with deadlines d[i] ms from
// now.
func (e *scriptEnv) queued(ids []string, d ...int64) {
	for i, id := range ids {
		e.append(id)
		e.c.ZAdd(e.ctx(), e.timeoutsKey(), redis.Z{Score: float64(e.now + d[i]), Member: id})
	}
}

// append puts id at the end of the queue, as join does, without a
// deadline.
func (e *scriptEnv) append(id string) {
	e.t.Helper()
	arrival := 1.0
	if last, _ := e.c.ZRangeWithScores(e.ctx(), e.queueKey(), -1, -1).Result(); len(last) > 0 {
		arrival = last[0].Score + 1
	}
	e.c.ZAdd(e.ctx(), e.queueKey(), redis.Z{Score: arrival, Member: id})
}

// fields returns the lock hash, field by field.
func (e *scriptEnv) fields() map[string]string {
	e.t.Helper()
	h, err := e.c.HGetAll(e.ctx(), e.hash).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

func (e *scriptEnv) wantFields(want map[string]string) {
	e.t.Helper()
	if got := e.fields(); !maps.Equal(got, want) {
		e.t.Fatalf("lock hash = %v, want %v", got, want)
	}
}

func (e *scriptEnv) wantFree() {
	e.t.Helper()
	if n, _ := e.c.Exists(e.ctx(), e.hash).Result(); n != 0 {
		e.t.Fatalf("lock still there: %v", e.fields())
	}
}

func (e *scriptEnv) wantQueue(want ...string) {
	e.t.Helper()
	got, _ := e.c.ZRange(e.ctx(), e.queueKey(), 0, -1).Result()
	ids, _ := e.c.ZRange(e.ctx(), e.timeoutsKey(), 0, -1).Result()
	if !slices.Equal(got, want) {
		e.t.Fatalf("queue = %q, want %q", got, want)
	}
	slices.Sort(ids)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(ids, sorted) {
		e.t.Fatalf("deadlines for %q, want for %q", ids, sorted)
	}
}

func (e *scriptEnv) wantDeadline(id string, ms int64) {
	e.t.Helper()
	d, err := e.c.ZScore(e.ctx(), e.timeoutsKey(), id).Result()
	if err != nil || int64(d) != e.now+ms {
		e.t.Fatalf("deadline of %s = %v, %v; want now + %d", id, d, err, ms)
	}
}

func (e *scriptEnv) wantCount(owner string, want int64) {
	e.t.Helper()
	n, err := e.c.HGet(e.ctx(), e.hash, owner).Int64()
	if errors.Is(err, redis.Nil) {
		n, err = 0, nil
	}
	if err != nil || n != want {
		e.t.Fatalf("hold count of %s = %d, %v; want %d", owner, n, err, want)
	}
}

// wantWoken checks that exactly the given owners' channels were published
// on, in order, since the last check.
func (e *scriptEnv) wantWoken(want ...string) {
	e.t.Helper()
	marker := e.chans + "~marker"
	e.c.Publish(e.ctx(), marker, "x")
	var got []string
	for {
		msg, err := e.ps.ReceiveMessage(e.ctx())
		if err != nil {
			e.t.Fatal(err)
		}
		if msg.Channel == marker {
			break
		}
		if msg.Payload != "1" {
			e.t.Fatalf("published %q on %s, want \"1\"", msg.Payload, msg.Channel)
		}
		got = append(got, msg.Channel[len(e.chans):])
	}
	if !slices.Equal(got, want) {
		e.t.Fatalf("woke %q, want %q", got, want)
	}
}

// The scripts, run with the standard ARGV of core.Spec.

func (e *scriptEnv) acquireWith(owner string, lease time.Duration, join bool) []int64 {
	e.t.Helper()
	j := tryOnly
	if join {
		j = joinQueue
	}
	e.attempts++
	id := fmt.Sprintf("a%d", e.attempts)
	res, err := scripts.Acquire.Run(e.ctx(), e.c, e.keys, owner, lease.Milliseconds(), id, wt.Milliseconds(), e.chans, j).Int64Slice()
	if err != nil {
		e.t.Fatalf("acquire: %v", err)
	}
	return res
}

func (e *scriptEnv) acquire(owner string, join bool) []int64 {
	e.t.Helper()
	return e.acquireWith(owner, lease, join)
}

func (e *scriptEnv) release(owner string, token int64, id string) int64 {
	e.t.Helper()
	n, err := scripts.Release.Run(e.ctx(), e.c, e.keys, owner, token, id, window.Milliseconds(), e.chans).Int64()
	if err != nil {
		e.t.Fatalf("release: %v", err)
	}
	return n
}

func (e *scriptEnv) undo(owner string, token, count int64) int64 {
	e.t.Helper()
	n, err := scripts.Undo.Run(e.ctx(), e.c, e.keys, owner, token, count, "", e.chans).Int64()
	if err != nil {
		e.t.Fatalf("undo: %v", err)
	}
	return n
}

func (e *scriptEnv) leave(owner string) int64 {
	e.t.Helper()
	n, err := leaveScript.Run(e.ctx(), e.c, e.keys, owner, e.chans).Int64()
	if err != nil {
		e.t.Fatalf("leave: %v", err)
	}
	return n
}

func (e *scriptEnv) force() int64 {
	e.t.Helper()
	n, err := scripts.Force.Run(e.ctx(), e.c, e.keys, core.ForceArgs(e.chans)...).Int64()
	if err != nil {
		e.t.Fatalf("force: %v", err)
	}
	return n
}

func wantReply(t *testing.T, got []int64, want ...int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("reply %v, want %v", got, want)
	}
}

func TestAcquireScript(t *testing.T) {
	t.Run("free and nobody queued: fresh hold", func(t *testing.T) {
		e := newScriptEnv(t)
		e.c.Set(e.ctx(), e.keys[1], 41, 0)
		wantReply(t, e.acquire("me", true), 1, e.us())
		e.wantFields(map[string]string{":kind": "fair", "me": "1", ":t:me": strconv.FormatInt(e.us(), 10), ":a:me": "a1"})
		if n, _ := e.c.Get(e.ctx(), e.keys[1]).Int64(); n != e.us() {
			t.Fatalf("fencing counter %d, want the minted token %d", n, e.us())
		}
		if d := e.mr.TTL(e.hash); d != lease {
			t.Fatalf("lease %v, want %v", d, lease)
		}
		if n, _ := e.c.Exists(e.ctx(), e.queueKey(), e.timeoutsKey()).Result(); n != 0 {
			t.Fatal("queue keys written for an uncontended acquire")
		}
		e.wantWoken()
	})
	t.Run("a counter ahead of the clock: the token is the counter + 1", func(t *testing.T) {
		e := newScriptEnv(t)
		e.c.Set(e.ctx(), e.keys[1], e.us()+41, 0)
		wantReply(t, e.acquire("me", true), 1, e.us()+42)
		e.wantFields(map[string]string{":kind": "fair", "me": "1", ":t:me": strconv.FormatInt(e.us()+42, 10), ":a:me": "a1"})
	})
	t.Run("a hash with only its kind marker is free", func(t *testing.T) {
		e := newScriptEnv(t)
		e.c.HSet(e.ctx(), e.hash, ":kind", "fair")
		wantReply(t, e.acquire("me", true), 1, e.us())
	})
	t.Run("held by me: re-entry, same token, own entry dropped", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 7)
		e.c.HSet(e.ctx(), e.hash, ":u:me", "u1")
		e.queued([]string{"me", "b"}, 1000, 1000)
		wantReply(t, e.acquire("me", true), 2, 7)
		// The last partial unlock's id stays, so that its retry after
		// this re-entry finds itself done.
		e.wantFields(map[string]string{":kind": "fair", "me": "2", ":t:me": "7", ":u:me": "u1", ":a:me": "a1"})
		e.wantQueue("b")
	})
	t.Run("the same acquire sent again answers again, counting once", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 7)
		wantReply(t, e.acquire("me", true), 2, 7)
		e.attempts-- // the client re-sends attempt a1
		wantReply(t, e.acquire("me", true), 2, 7)
		e.wantFields(map[string]string{":kind": "fair", "me": "2", ":t:me": "7", ":a:me": "a1"})
	})
	t.Run("re-entry extends the lease, never shortens it", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 7)
		e.acquireWith("me", time.Second, true)
		if d := e.mr.TTL(e.hash); d != lease {
			t.Fatalf("lease %v after a shorter re-entry, want %v", d, lease)
		}
		e.acquireWith("me", time.Minute, true)
		if d := e.mr.TTL(e.hash); d != time.Minute {
			t.Fatalf("lease %v after a longer re-entry, want %v", d, time.Minute)
		}
	})
	t.Run("held by another: join, wait = lease", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		wantReply(t, e.acquire("me", true), 0, lease.Milliseconds())
		e.wantQueue("me")
		e.wantDeadline("me", wt.Milliseconds())
		for _, k := range []string{e.queueKey(), e.timeoutsKey()} {
			if d := e.mr.TTL(k); d != wt {
				t.Fatalf("TTL of %s = %v, want %v", k, d, wt)
			}
		}
	})
	t.Run("joins behind the last entry, after others left", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"a", "b", "c"}, 100, 100, 100)
		e.leave("c")
		e.leave("a")
		e.acquire("me", true)
		e.acquire("d", true)
		e.wantQueue("b", "me", "d")
	})
	t.Run("held by another: a try does not join", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		wantReply(t, e.acquire("me", false), 0, lease.Milliseconds())
		e.wantQueue()
	})
	t.Run("held without expiry: no bound", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.c.Persist(e.ctx(), e.hash)
		wantReply(t, e.acquire("me", true), 0, -1)
	})
	t.Run("free but another is first: wait = its deadline, and it is woken", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"a"}, 1200)
		wantReply(t, e.acquire("me", true), 0, 1200)
		e.wantQueue("a", "me")
		e.wantWoken("a")
		wantReply(t, e.acquire("x", false), 0, -1)
		e.wantQueue("a", "me")
		e.wantFree()
		e.wantWoken("a")
	})
	t.Run("wait is bounded by the entry directly ahead", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"a", "b", "me", "c"}, 4000, 900, 3000, 100)
		wantReply(t, e.acquire("me", true), 0, 900)
		e.wantDeadline("me", wt.Milliseconds())
		e.wantQueue("a", "b", "me", "c")
	})
	t.Run("free and first in line: fresh hold, entry removed", func(t *testing.T) {
		e := newScriptEnv(t)
		e.c.Set(e.ctx(), e.keys[1], 41, 0)
		e.queued([]string{"me", "b"}, 100, 200)
		wantReply(t, e.acquire("me", true), 1, e.us())
		e.wantQueue("b")
		e.wantWoken()
	})
	t.Run("expired entries are evicted, the new head woken", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"dead1", "b", "dead2"}, 0, 500, -10)
		wantReply(t, e.acquire("me", true), 0, 500)
		e.wantQueue("b", "me")
		e.wantWoken("b")
	})
	t.Run("expired head evicted: the next takes the lock", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"dead", "me"}, -1, 100)
		wantReply(t, e.acquire("me", true), 1, e.us())
		e.wantQueue()
		e.wantWoken()
	})
	t.Run("the caller's own overdue entry is renewed, not evicted", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"me", "b"}, -100, 100)
		e.acquire("me", true)
		e.wantQueue("me", "b")
		e.wantDeadline("me", wt.Milliseconds())
	})
	t.Run("a head without a deadline is dropped", func(t *testing.T) {
		e := newScriptEnv(t)
		e.append("stray")
		wantReply(t, e.acquire("me", true), 1, e.us())
		e.wantQueue()
	})
}

func TestReleaseScript(t *testing.T) {
	t.Run("partial, and its retry", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 2, 5)
		e.queued([]string{"a"}, 100)
		for range 2 {
			if n := e.release("me", 5, "u1"); n != 1 {
				t.Fatalf("got %d, want 1", n)
			}
		}
		e.wantFields(map[string]string{":kind": "fair", "me": "1", ":t:me": "5", ":u:me": "u1"})
		e.wantWoken()
	})
	t.Run("final wakes the head only, and its retry", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		e.queued([]string{"a", "b"}, 100, 100)
		if n := e.release("me", 5, "u1"); n != 0 {
			t.Fatalf("got %d, want 0", n)
		}
		e.wantFree()
		e.wantWoken("a")
		e.wantQueue("a", "b")
		if n := e.release("me", 5, "u1"); n != 0 {
			t.Fatalf("retry got %d, want 0", n)
		}
		e.wantWoken()
	})
	t.Run("final evicts dead heads and wakes the first live one", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		e.queued([]string{"dead", "b"}, -1, 100)
		e.release("me", 5, "u1")
		e.wantWoken("b")
		e.wantQueue("b")
	})
	t.Run("final with nobody queued wakes nobody", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		e.release("me", 5, "u1")
		e.wantFree()
		e.wantWoken()
	})
	t.Run("another hold: -1", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 6)
		if n := e.release("me", 5, "u1"); n != -1 {
			t.Fatalf("got %d, want -1", n)
		}
		e.wantCount("me", 1)
	})
}

func TestRenewScript(t *testing.T) {
	e := newScriptEnv(t)
	e.hold("me", 1, 5)
	renew := func(token int64) int64 {
		t.Helper()
		n, err := lua.Mutex.Renew.Run(e.ctx(), e.c, e.keys, "me", token, time.Minute.Milliseconds()).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := renew(5); n != 1 || e.mr.TTL(e.hash) != time.Minute {
		t.Fatalf("renew of the live hold = %d, lease %v; want 1, 1m", n, e.mr.TTL(e.hash))
	}
	if n := renew(4); n != 0 {
		t.Fatalf("renew of an older hold = %d, want 0", n)
	}
}

func TestUndoScript(t *testing.T) {
	cases := []struct {
		name                   string
		holder                 string
		count, token           int64    // the hold in Redis
		queued                 []string // each with a deadline 100 ms from now
		knownToken, knownCount int64    // what "me" knows of its hold
		want                   int64    // the reply: 1 undone, 0 nothing to undo
		left                   int64    // the holder's count after; 0 when the lock is free
		woken                  []string
	}{
		{"an unknown fresh hold: freed, the head woken", "me", 1, 9, []string{"b"}, 0, 0, 1, 0, []string{"b"}},
		{"an unknown re-entry: back to the known count", "me", 3, 9, []string{"b"}, 9, 2, 1, 2, nil},
		{"nothing to undo", "me", 2, 9, nil, 9, 2, 0, 2, nil},
		{"a hold newer than the known one is freed", "me", 1, 10, nil, 9, 2, 1, 0, nil},
		{"other owners are left alone", "other", 1, 10, []string{"b"}, 0, 0, 0, 1, nil},
		{"the owner's queue entry stays", "me", 1, 9, []string{"me", "b"}, 0, 0, 1, 0, []string{"me"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newScriptEnv(t)
			e.hold(tc.holder, tc.count, tc.token)
			e.queued(tc.queued, slices.Repeat([]int64{100}, len(tc.queued))...)
			if n := e.undo("me", tc.knownToken, tc.knownCount); n != tc.want {
				t.Fatalf("got %d, want %d", n, tc.want)
			}
			if tc.left == 0 {
				e.wantFree()
			} else {
				e.wantCount(tc.holder, tc.left)
			}
			e.wantWoken(tc.woken...)
			e.wantQueue(tc.queued...)
		})
	}
}

func TestLeaveScript(t *testing.T) {
	t.Run("from the middle: no wake-up", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"a", "me", "b"}, 100, 100, 100)
		if n := e.leave("me"); n != 1 {
			t.Fatalf("got %d, want 1", n)
		}
		e.wantQueue("a", "b")
		e.wantWoken()
	})
	t.Run("head of a free lock: wakes the next", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me", "b", "c"}, 100, 100, 100)
		e.leave("me")
		e.wantQueue("b", "c")
		e.wantWoken("b")
	})
	t.Run("head of a held lock: no wake-up", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"me", "b"}, 100, 100)
		e.leave("me")
		e.wantQueue("b")
		e.wantWoken()
	})
	t.Run("not queued", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"a"}, 100)
		if n := e.leave("me"); n != 0 {
			t.Fatalf("got %d, want 0", n)
		}
		e.wantQueue("a")
		e.wantWoken()
	})
	t.Run("the last entry: queue keys deleted", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"me"}, 100)
		e.leave("me")
		if n, _ := e.c.Exists(e.ctx(), e.queueKey(), e.timeoutsKey()).Result(); n != 0 {
			t.Fatal("queue keys left behind")
		}
	})
}

func TestForceScript(t *testing.T) {
	e := newScriptEnv(t)
	e.hold("other", 3, 1)
	e.queued([]string{"dead", "a", "b"}, -5, 100, 100)
	if n := e.force(); n != 1 {
		t.Fatalf("got %d, want 1", n)
	}
	e.wantFree()
	e.wantWoken("a")
	e.wantQueue("a", "b")
	if n := e.force(); n != 0 {
		t.Fatalf("on a free lock got %d, want 0", n)
	}
	e.wantWoken()
}

// TestScripts_refuse_another_kind checks that every script that writes the
// lock hash refuses a hash of another kind with a WRONGKIND error and
// changes nothing.
func TestScripts_refuse_another_kind(t *testing.T) {
	cases := []struct {
		name string
		run  func(e *scriptEnv) error
	}{
		{"acquire", func(e *scriptEnv) error {
			return scripts.Acquire.Run(e.ctx(), e.c, e.keys, "me", lease.Milliseconds(), "a1", wt.Milliseconds(), e.chans, joinQueue).Err()
		}},
		{"release", func(e *scriptEnv) error {
			return scripts.Release.Run(e.ctx(), e.c, e.keys, "x", 1, "u1", window.Milliseconds(), e.chans).Err()
		}},
		{"undo", func(e *scriptEnv) error {
			return scripts.Undo.Run(e.ctx(), e.c, e.keys, "x", 0, 0, "", e.chans).Err()
		}},
		{"force", func(e *scriptEnv) error {
			return scripts.Force.Run(e.ctx(), e.c, e.keys, core.ForceArgs(e.chans)...).Err()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newScriptEnv(t)
			e.c.HSet(e.ctx(), e.hash, ":kind", "reentrant", "x", 1, ":t:x", 1)
			e.c.PExpire(e.ctx(), e.hash, lease)
			e.queued([]string{"a"}, 100)
			before := e.fields()
			err := tc.run(e)
			if err == nil || !strings.HasPrefix(err.Error(), "WRONGKIND") {
				t.Fatalf("err = %v, want a WRONGKIND error", err)
			}
			e.wantFields(before)
			e.wantQueue("a")
			e.wantWoken()
		})
	}
}
