package fair

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/redistest"
)

// scriptEnv is one lock on miniredis with the server clock stopped at now,
// and a pattern subscription that records what the scripts publish.
type scriptEnv struct {
	t   *testing.T
	mr  *miniredis.Miniredis
	c   *redis.Client
	k   keys
	now int64 // server time in ms
	ps  *redis.PubSub
}

const (
	lease = 30 * time.Second
	wt    = 5 * time.Second
)

func newScriptEnv(t *testing.T) *scriptEnv {
	mr, c := redistest.Mini(t)
	e := &scriptEnv{t: t, mr: mr, c: c, now: 1_700_000_000_000, k: newKeys(internal.DefaultPrefix, "L")}
	mr.SetTime(time.UnixMilli(e.now))
	e.ps = c.PSubscribe(context.Background(), e.k.channels+"*")
	t.Cleanup(func() { e.ps.Close() })
	if _, err := e.ps.Receive(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *scriptEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// hold makes owner hold the lock count times with token.
func (e *scriptEnv) hold(owner string, count, token int64) {
	e.c.HSet(e.ctx(), e.k.lock, owner, count, ":token", token)
	e.c.PExpire(e.ctx(), e.k.lock, lease)
}

// queued puts ids in the queue, with deadlines d[i] ms from now.
func (e *scriptEnv) queued(ids []string, d ...int64) {
	for i, id := range ids {
		e.c.RPush(e.ctx(), e.k.queue, id)
		e.c.ZAdd(e.ctx(), e.k.timeouts, redis.Z{Score: float64(e.now + d[i]), Member: id})
	}
}

func (e *scriptEnv) wantQueue(want ...string) {
	e.t.Helper()
	got, _ := e.c.LRange(e.ctx(), e.k.queue, 0, -1).Result()
	ids, _ := e.c.ZRange(e.ctx(), e.k.timeouts, 0, -1).Result()
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
	d, err := e.c.ZScore(e.ctx(), e.k.timeouts, id).Result()
	if err != nil || int64(d) != e.now+ms {
		e.t.Fatalf("deadline of %s = %v, %v; want now + %d", id, d, err, ms)
	}
}

func (e *scriptEnv) wantCount(owner string, want int64) {
	e.t.Helper()
	n, err := e.c.HGet(e.ctx(), e.k.lock, owner).Int64()
	if err == redis.Nil {
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
	marker := e.k.channels + "~marker"
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
		got = append(got, msg.Channel[len(e.k.channels):])
	}
	if !slices.Equal(got, want) {
		e.t.Fatalf("woke %q, want %q", got, want)
	}
}

func (e *scriptEnv) acquire(owner string, join bool) acquired {
	e.t.Helper()
	res, err := runAcquire(e.ctx(), e.c, e.k, owner, lease, wt, join)
	if err != nil {
		e.t.Fatalf("acquire: %v", err)
	}
	return res
}

func TestAcquireScript(t *testing.T) {
	ms := time.Millisecond
	t.Run("free and nobody queued: fresh hold", func(t *testing.T) {
		e := newScriptEnv(t)
		if got := e.acquire("me", true); got != (acquired{count: 1, token: 1}) {
			t.Fatalf("got %+v", got)
		}
		e.wantCount("me", 1)
		e.wantQueue()
		if n, _ := e.c.Exists(e.ctx(), e.k.queue, e.k.timeouts).Result(); n != 0 {
			t.Fatal("queue keys written for an uncontended acquire")
		}
		e.wantWoken()
	})
	t.Run("held by me: re-entry, same token, own entry dropped", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 7)
		e.queued([]string{"me", "b"}, 1000, 1000)
		if got := e.acquire("me", true); got != (acquired{count: 2, token: 7}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("b")
	})
	t.Run("held by another: join, wait = lease", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		if got := e.acquire("me", true); got != (acquired{wait: lease}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("me")
		e.wantDeadline("me", wt.Milliseconds())
		for _, k := range []string{e.k.queue, e.k.timeouts} {
			if d := e.mr.TTL(k); d != wt {
				t.Fatalf("TTL of %s = %v, want %v", k, d, wt)
			}
		}
	})
	t.Run("held by another: a try does not join", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		if got := e.acquire("me", false); got != (acquired{wait: lease}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue()
	})
	t.Run("free but another is first: wait = its deadline", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"a"}, 1200)
		if got := e.acquire("me", true); got != (acquired{wait: 1200 * ms}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("a", "me")
		if got := e.acquire("x", false); got.count != 0 {
			t.Fatalf("try past the queue: %+v", got)
		}
		e.wantQueue("a", "me")
		e.wantWoken()
	})
	t.Run("wait is bounded by the entry directly ahead", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"a", "b", "me", "c"}, 4000, 900, 3000, 100)
		if got := e.acquire("me", true); got != (acquired{wait: 900 * ms}) {
			t.Fatalf("got %+v", got)
		}
		e.wantDeadline("me", wt.Milliseconds())
		e.wantQueue("a", "b", "me", "c")
	})
	t.Run("free and first in line: fresh hold, entry removed", func(t *testing.T) {
		e := newScriptEnv(t)
		e.c.Set(e.ctx(), e.k.fence, 41, 0)
		e.queued([]string{"me", "b"}, 100, 200)
		if got := e.acquire("me", true); got != (acquired{count: 1, token: 42}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("b")
		e.wantWoken()
	})
	t.Run("expired entries are evicted, the new head woken", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"dead1", "b", "dead2"}, 0, 500, -10)
		if got := e.acquire("me", true); got != (acquired{wait: 500 * ms}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("b", "me")
		e.wantWoken("b")
	})
	t.Run("expired head evicted: the next takes the lock", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"dead", "me"}, -1, 100)
		if got := e.acquire("me", true); got.count != 1 {
			t.Fatalf("got %+v", got)
		}
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
		e.c.RPush(e.ctx(), e.k.queue, "stray")
		if got := e.acquire("me", true); got.count != 1 {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue()
	})
}

func TestReleaseScript(t *testing.T) {
	release := func(e *scriptEnv, owner string, token int64, id string) int64 {
		e.t.Helper()
		n, err := runRelease(e.ctx(), e.c, e.k, owner, token, id, 10*time.Second)
		if err != nil {
			e.t.Fatal(err)
		}
		return n
	}
	t.Run("partial, and its retry", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 2, 5)
		e.queued([]string{"a"}, 100)
		for range 2 {
			if n := release(e, "me", 5, "u1"); n != 1 {
				t.Fatalf("got %d, want 1", n)
			}
		}
		e.wantCount("me", 1)
		e.wantWoken()
	})
	t.Run("final wakes the head only, and its retry", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		e.queued([]string{"a", "b"}, 100, 100)
		if n := release(e, "me", 5, "u1"); n != 0 {
			t.Fatalf("got %d, want 0", n)
		}
		if n, _ := e.c.Exists(e.ctx(), e.k.lock).Result(); n != 0 {
			t.Fatal("lock still there")
		}
		e.wantWoken("a")
		e.wantQueue("a", "b")
		if n := release(e, "me", 5, "u1"); n != 0 {
			t.Fatalf("retry got %d, want 0", n)
		}
		e.wantWoken()
	})
	t.Run("final evicts dead heads and wakes the first live one", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		e.queued([]string{"dead", "b"}, -1, 100)
		release(e, "me", 5, "u1")
		e.wantWoken("b")
		e.wantQueue("b")
	})
	t.Run("final with nobody queued wakes nobody", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 5)
		release(e, "me", 5, "u1")
		e.wantWoken()
	})
	t.Run("another hold: -1", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 6)
		if n := release(e, "me", 5, "u1"); n != -1 {
			t.Fatalf("got %d, want -1", n)
		}
		e.wantCount("me", 1)
	})
}

func TestLeaveScript(t *testing.T) {
	leave := func(e *scriptEnv, owner string, remove, undo bool, token, count int64) left {
		e.t.Helper()
		l, err := runLeave(e.ctx(), e.c, e.k, owner, remove, undo, token, count)
		if err != nil {
			e.t.Fatal(err)
		}
		return l
	}
	t.Run("from the middle: no wake-up", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"a", "me", "b"}, 100, 100, 100)
		if got := leave(e, "me", true, false, 0, 0); got != (left{removed: true}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("a", "b")
		e.wantWoken()
	})
	t.Run("head of a free lock: wakes the next", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me", "b", "c"}, 100, 100, 100)
		leave(e, "me", true, false, 0, 0)
		e.wantQueue("b", "c")
		e.wantWoken("b")
	})
	t.Run("head of a held lock: no wake-up", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 1)
		e.queued([]string{"me", "b"}, 100, 100)
		leave(e, "me", true, false, 0, 0)
		e.wantQueue("b")
		e.wantWoken()
	})
	t.Run("keep the entry", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me"}, 100)
		if got := leave(e, "me", false, false, 0, 0); got != (left{}) {
			t.Fatalf("got %+v", got)
		}
		e.wantQueue("me")
	})
	t.Run("undo an unknown fresh hold: freed, next woken", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 9)
		e.queued([]string{"b"}, 100)
		if got := leave(e, "me", true, true, 0, 0); got != (left{undone: true}) {
			t.Fatalf("got %+v", got)
		}
		if n, _ := e.c.Exists(e.ctx(), e.k.lock).Result(); n != 0 {
			t.Fatal("lock still there")
		}
		e.wantWoken("b")
	})
	t.Run("undo an unknown re-entry: back to the known count", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 3, 9)
		if got := leave(e, "me", false, true, 9, 2); got != (left{undone: true}) {
			t.Fatalf("got %+v", got)
		}
		e.wantCount("me", 2)
		e.wantWoken()
	})
	t.Run("undo with nothing to undo", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 2, 9)
		if got := leave(e, "me", true, true, 9, 2); got != (left{}) {
			t.Fatalf("got %+v", got)
		}
		e.wantCount("me", 2)
	})
	t.Run("undo a hold newer than the known one", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("me", 1, 10)
		if got := leave(e, "me", false, true, 9, 2); got != (left{undone: true}) {
			t.Fatalf("got %+v", got)
		}
		e.wantCount("me", 0)
	})
	t.Run("undo leaves other owners alone", func(t *testing.T) {
		e := newScriptEnv(t)
		e.hold("other", 1, 10)
		if got := leave(e, "me", true, true, 0, 0); got != (left{}) {
			t.Fatalf("got %+v", got)
		}
		e.wantCount("other", 1)
	})
}

func TestForceUnlockScript(t *testing.T) {
	e := newScriptEnv(t)
	e.hold("other", 3, 1)
	e.queued([]string{"dead", "a", "b"}, -5, 100, 100)
	if ok, err := runForceUnlock(e.ctx(), e.c, e.k); !ok || err != nil {
		t.Fatalf("got %v, %v; want true", ok, err)
	}
	e.wantWoken("a")
	e.wantQueue("a", "b")
	if ok, err := runForceUnlock(e.ctx(), e.c, e.k); ok || err != nil {
		t.Fatalf("on a free lock got %v, %v; want false", ok, err)
	}
	e.wantWoken()
}
