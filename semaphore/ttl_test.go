package semaphore_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestEvery_key_but_the_fence_expires_with_what_it_serves builds every key
// of a semaphore at once (two holds, a number set at run time, a waiter
// and a released token) and checks each one's TTL against doc.go: the hash
// and the leases live as long as the latest lease, the queue as long as
// the latest waiter deadline, the number 24 hours, a released token 10 s,
// and only the fencing counter has no TTL.
func TestEvery_key_but_the_fence_expires_with_what_it_serves(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	c := redistest.Lockkit(t, rc)
	s, name := newSemaphore(t, rc, 2)
	ctx := redistest.Ctx(t, redistest.Hang)
	a, b := mustAcquire(t, s, 1), mustAcquire(t, s, 1)
	if err := s.SetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	waiting, giveUp := context.WithCancel(ctx)
	defer giveUp()
	got := acquireAsync(waiting, t, semaphore.New(c, name, 2), 2)
	waitSleeping(t, rc, c, name, 1)
	mustRelease(t, b)
	redistest.NotYet(t, got, "the waiter for 2 was served by 1 free permit")

	base := "lockkit:{" + name + "}"
	max := map[string]time.Duration{ // the largest TTL each key may have; 0: none
		base:               30 * time.Second, // the watchdog's lease
		base + ":leases":   30 * time.Second,
		base + ":waiters":  5 * time.Second, // the waiter timeout
		base + ":timeouts": 5 * time.Second,
		base + ":permits":  24 * time.Hour,
		base + ":fence":    0,
	}
	var keys []string
	iter := rc.Scan(ctx, 0, "*{"+name+"}*", 100).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	released := 0
	for _, key := range keys {
		limit, ok := max[key]
		if strings.HasPrefix(key, base+":released:") {
			limit, ok = 10*time.Second, true
			released++
		}
		if !ok {
			t.Errorf("unexpected key %s", key)
			continue
		}
		delete(max, key)
		ttl, err := rc.PTTL(ctx, key).Result()
		switch {
		case err != nil:
			t.Fatal(err)
		case limit == 0 && ttl != -1:
			t.Errorf("%s: TTL %v, want none", key, ttl)
		case limit > 0 && (ttl <= 0 || ttl > limit):
			t.Errorf("%s: TTL %v, want one of at most %v", key, ttl, limit)
		}
	}
	if len(max) > 0 || released != 1 {
		t.Fatalf("keys %v: missing %v, %d released tokens (want 1)", keys, max, released)
	}
	giveUp()
	if p := redistest.Receive(t, got, redistest.Hang, "the waiter to give up"); p != nil {
		t.Fatal("the waiter got its permits")
	}
	mustRelease(t, a)
}
