package semaphore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// chans is the prefix of the waiters' own channels of the semaphore "s"
// that the script tests run on.
const chans = "lockkit:{s}:ch:"

// scriptKeys returns the keys of the semaphore "s" that the script tests
// run on, and the KEYS of every script of it (see semaphore.lua).
func scriptKeys() (core.Keys, []string) {
	k := core.NewKeys("lockkit", "s", false)
	return k, []string{k.Base, k.Fence, k.Released, k.Sub("leases"), k.Sub("waiters"), k.Sub("timeouts"), k.Sub("permits")}
}

// TestScripts walks through every documented return of the semaphore's
// scripts, in order, on one semaphore of 2 permits, listening on the
// waiters' own channels to check who each step wakes.
func TestScripts(t *testing.T) {
	mr, rc := redistest.Mini(t)
	ctx := context.Background()
	k, keys := scriptKeys()
	woken := listen(t, rc, chans, "w1", "w2", "w3")
	ints := func(c *redis.Cmd) []int64 {
		v, err := c.Int64Slice()
		if err != nil {
			t.Fatalf("script: %v", err)
		}
		return v
	}
	acquire := func(h, attempt string, n int, join string) []int64 {
		return ints(acquireScript.Run(ctx, rc, keys, h, 60000, attempt, 2, n, 5000, chans, 86400000, join))
	}
	token := map[string]int64{}
	release := func(h, unlock string) int64 {
		n, err := releaseScript.Run(ctx, rc, keys, h, token[h], unlock, 10000, 2, chans).Int64()
		if err != nil {
			t.Fatalf("release: %v", err)
		}
		return n
	}
	state := func() []any {
		v, err := stateScript.Run(ctx, rc, keys, 2, chans).Slice()
		if err != nil {
			t.Fatalf("state: %v", err)
		}
		return v
	}

	// Take both permits, in two holds.
	if r := acquire("w1", "a1", 1, joinQueue); r[0] != 1 {
		t.Fatalf("acquire of a free permit = %v, want {1, token}", r)
	} else {
		token["w1"] = r[1]
	}
	if r := acquire("w1", "a1", 1, joinQueue); r[0] != 1 || r[1] != token["w1"] {
		t.Fatalf("re-sent acquire = %v, want the same hold again", r)
	}
	r := acquire("w2", "a2", 1, joinQueue)
	if r[0] != 1 || r[1] <= token["w1"] {
		t.Fatalf("acquire of the last permit = %v, want a larger token than %d", r, token["w1"])
	}
	token["w2"] = r[1]
	// Refused: a single try does not queue, a waiter does.
	if r := acquire("w3", "a3", 1, tryOnly); r[0] != 0 || r[1] <= 0 || r[1] > 60000 {
		t.Fatalf("try of a taken semaphore = %v, want {0, ms to the first lease end}", r)
	}
	if n, _ := rc.ZCard(ctx, k.Sub("waiters")).Result(); n != 0 {
		t.Fatalf("a single try queued")
	}
	if r := acquire("w3", "a4", 2, joinQueue); r[0] != 0 {
		t.Fatalf("acquire of 2 taken permits = %v, want refused", r)
	}
	if s := state(); s[0] != int64(2) || s[1] != int64(0) || len(s) != 10 {
		t.Fatalf("state = %v, want 2 permits, 0 free, 2 holds", s)
	}
	// A release of one permit serves nobody: the waiter wants 2.
	if n := release("w1", "u1"); n != 0 {
		t.Fatalf("release = %d, want 0", n)
	}
	if got := woken(); len(got) != 0 {
		t.Fatalf("release of 1 permit woke %v, want nobody (the head wants 2)", got)
	}
	if n := release("w1", "u1"); n != 0 {
		t.Fatalf("retried release = %d, want 0 again", n)
	}
	if s := state(); s[1] != int64(1) {
		t.Fatalf("free after a retried release = %v, want 1 (not released twice)", s[1])
	}
	// A newcomer does not pass the waiter: its one free permit is the head's.
	if r := acquire("w1", "a5", 1, tryOnly); r[0] != 0 {
		t.Fatalf("try past a waiter = %v, want refused", r)
	}
	if n := release("w2", "u2"); n != 0 {
		t.Fatalf("release = %d, want 0", n)
	}
	if got := woken(); !slices.Equal(got, []string{"w3"}) {
		t.Fatalf("release woke %v, want [w3]", got)
	}
	if n := release("w2", "u9"); n != 0 {
		t.Fatalf("release of a released token under another unlock id = %d, want 0 (remembered)", n)
	}
	if r := acquire("w3", "a6", 2, joinQueue); r[0] != 1 {
		t.Fatalf("acquire of the woken head = %v, want taken", r)
	} else {
		token["w3"] = r[1]
	}
	if n, _ := rc.Exists(ctx, k.Sub("waiters"), k.Sub("timeouts")).Result(); n != 0 {
		t.Fatalf("queue left after its last waiter took its permits")
	}

	// Renew: live, wrong token, gone.
	renew := func(h string, tok int64) int64 {
		n, err := renewScript.Run(ctx, rc, []string{keys[0], keys[3]}, h, tok, 60000).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if renew("w3", token["w3"]) != 1 || renew("w3", 1) != 0 || renew("w1", token["w1"]) != 0 {
		t.Fatal("renew: want 1 for the live hold, 0 for a wrong token or a released hold")
	}

	// Shrink to 1 with 2 held: nothing is revoked, nothing is free.
	if n, err := permitsScript.Run(ctx, rc, keys, 1, 86400000, 2, chans).Int64(); err != nil || n != -1 {
		t.Fatalf("set permits to 1 = %d, %v; want -1 free", n, err)
	}
	if r := acquire("w1", "a7", 1, joinQueue); r[0] != 0 {
		t.Fatalf("acquire over a shrunk number = %v, want refused", r)
	}
	// Grow to 4: the waiter is served and woken.
	if n, err := permitsScript.Run(ctx, rc, keys, 4, 86400000, 2, chans).Int64(); err != nil || n != 2 {
		t.Fatalf("set permits to 4 = %d, %v; want 2 free", n, err)
	}
	if got := woken(); !slices.Equal(got, []string{"w1"}) {
		t.Fatalf("growing woke %v, want [w1]", got)
	}
	// leave: the entry is there once.
	for want := int64(1); want >= 0; want-- {
		if n, err := leaveScript.Run(ctx, rc, keys, "1:w1", 2, chans).Int64(); err != nil || n != want {
			t.Fatalf("leave = %d, %v; want %d", n, err, want)
		}
	}

	// Undo of a hold the caller does not know of, then of nothing.
	if r := acquire("w2", "a8", 1, tryOnly); r[0] != 1 {
		t.Fatalf("acquire = %v", r)
	}
	for want := int64(1); want >= 0; want-- {
		if n, err := undoScript.Run(ctx, rc, keys, "w2", 0, 0, "", 2, chans).Int64(); err != nil || n != want {
			t.Fatalf("undo = %d, %v; want %d", n, err, want)
		}
	}

	// A lease that ends frees its permits and wakes the waiter they serve.
	// (The waiter's entry outlives the leases: a timeout of 2 minutes.)
	if r := ints(acquireScript.Run(ctx, rc, keys, "w1", 60000, "a9", 2, 4, 120000, chans, 86400000, joinQueue)); r[0] != 0 {
		t.Fatalf("acquire of 4 with 2 held = %v, want refused", r)
	}
	mr.SetTime(time.Now().Add(61 * time.Second))
	if s := state(); s[1] != int64(4) || len(s) != 2 {
		t.Fatalf("state after the leases ended = %v, want 4 free and no hold", s)
	}
	if got := woken(); !slices.Equal(got, []string{"w1"}) {
		t.Fatalf("ended lease woke %v, want [w1]", got)
	}
	if n := release("w3", "u3"); n != -1 {
		t.Fatalf("release of an ended hold = %d, want -1", n)
	}

	// Another kind's name.
	mr.HSet("lockkit:{m}", ":kind", "reentrant")
	mkeys := slices.Clone(keys)
	mkeys[0] = "lockkit:{m}"
	for name, err := range map[string]error{
		"acquire": acquireScript.Run(ctx, rc, mkeys, "x", 60000, "a", 2, 1, 5000, chans, 1000, joinQueue).Err(),
		"release": releaseScript.Run(ctx, rc, mkeys, "x", 1, "u", 10000, 2, chans).Err(),
		"undo":    undoScript.Run(ctx, rc, mkeys, "x", 0, 0, "", 2, chans).Err(),
		"leave":   leaveScript.Run(ctx, rc, mkeys, "1:x", 2, chans).Err(),
		"permits": permitsScript.Run(ctx, rc, mkeys, 3, 1000, 2, chans).Err(),
		"state":   stateScript.Run(ctx, rc, mkeys, 2, chans).Err(),
	} {
		if !redis.HasErrorPrefix(err, "WRONGKIND") {
			t.Errorf("%s of another kind's name = %v, want WRONGKIND", name, err)
		}
	}
	if keys, _ := mr.HKeys("lockkit:{m}"); len(keys) != 1 {
		t.Fatalf("a script changed another kind's hash: %v", keys)
	}
}

// listen subscribes to the own channels (prefix + id) of waiters ids and
// returns a function that reports the waiters woken since its last call,
// sorted: those whose wake-up came before a marker it publishes on the
// same connection's channels, in order.
func listen(t *testing.T, rc *redis.Client, prefix string, ids ...string) func() []string {
	t.Helper()
	ctx := context.Background()
	const marker = "marker"
	chans := []string{marker}
	for _, id := range ids {
		chans = append(chans, prefix+id)
	}
	sub := rc.Subscribe(ctx, chans...)
	t.Cleanup(func() { sub.Close() })
	for range chans {
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return func() []string {
		t.Helper()
		if err := rc.Publish(ctx, marker, "").Err(); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Channel == marker {
				slices.Sort(got)
				return got
			}
			got = append(got, msg.Channel[len(prefix):])
		}
	}
}

// TestScripts_each_release_wakes_only_the_waiters_it_serves releases two
// holds of one permit, one after the other, while three waiters of one
// permit wait: each release wakes the next waiter it serves, not again
// the one the first woke (which has not taken its permit yet).
func TestScripts_each_release_wakes_only_the_waiters_it_serves(t *testing.T) {
	_, rc := redistest.Mini(t)
	ctx := context.Background()
	_, keys := scriptKeys()
	woken := listen(t, rc, chans, "w1", "w2", "w3")
	acquire := func(h string) []int64 {
		r, err := acquireScript.Run(ctx, rc, keys, h, 60000, "a"+h, 2, 1, 5000, chans, 86400000, joinQueue).Int64Slice()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tokens := []int64{acquire("h1")[1], acquire("h2")[1]}
	for _, w := range []string{"w1", "w2", "w3"} {
		if r := acquire(w); r[0] != 0 {
			t.Fatalf("acquire of %s = %v, want refused", w, r)
		}
	}
	for i, want := range [][]string{{"w1"}, {"w2"}} {
		h := "h" + string(rune('1'+i))
		if n, err := releaseScript.Run(ctx, rc, keys, h, tokens[i], "u", 10000, 2, chans).Int64(); err != nil || n != 0 {
			t.Fatalf("release of %s = %d, %v", h, n, err)
		}
		if got := woken(); !slices.Equal(got, want) {
			t.Fatalf("release of %s woke %v, want %v", h, got, want)
		}
	}
}
