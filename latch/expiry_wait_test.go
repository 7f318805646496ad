package latch_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestAwait_and_Count_do_not_extend_the_latchs_expiry: only a count-down
// restarts a latch's expiry. With the latch's TTL shortened to 10
// minutes after its first count-down, a waiter that reads it, subscribes
// and sleeps in Await, and a Count beside it, leave the TTL where it was;
// the next count-down sets it to the 24 h default again.
func TestAwait_and_Count_do_not_extend_the_latchs_expiry(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	c := redistest.Lockkit(t, rc)
	ctx := redistest.Ctx(t, redistest.Hang)
	name := redistest.Unique(t)
	key := "lockkit:{" + name + "}"
	l := latch.New(c, name, 2)
	mustCountDown(t, l, 1)
	const shortened = 10 * time.Minute
	if err := rc.PExpire(ctx, key, shortened).Err(); err != nil {
		t.Fatal(err)
	}

	got := awaitAsync(ctx, l)
	waitSleeping(t, c, name, 1)
	if n, err := l.Count(ctx); n != 1 || err != nil {
		t.Fatalf("Count = %d, %v; want 1", n, err)
	}
	if ttl, err := rc.PTTL(ctx, key).Result(); err != nil || ttl <= 0 || ttl > shortened {
		t.Fatalf("PTTL after Await and Count = %v, %v; want at most the %v it was given", ttl, err, shortened)
	}

	mustCountDown(t, l, 0)
	if ttl, err := rc.PTTL(ctx, key).Result(); err != nil || ttl <= latch.DefaultExpiry-time.Second || ttl > latch.DefaultExpiry {
		t.Errorf("PTTL after the last count-down = %v, %v; want the default expiry %v", ttl, err, latch.DefaultExpiry)
	}
	if err := redistest.Receive(t, got, redistest.Hang, "Await to return"); err != nil {
		t.Fatalf("Await = %v", err)
	}
}
