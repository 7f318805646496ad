package latch

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestScripts walks through every documented return of the latch's
// scripts, in order, on one latch of 2.
func TestScripts(t *testing.T) {
	mr, rc := redistest.Mini(t)
	ctx := context.Background()
	const hash, ch = "lockkit:{l}", "lockkit:{l}:ch"
	down := func(id string) (int64, error) {
		return countDownScript.Run(ctx, rc, []string{hash}, 2, 60000, id, ch, "latch").Int64()
	}
	count := func() (int64, error) { return countScript.Run(ctx, rc, []string{hash}, "latch").Int64() }
	sub := rc.Subscribe(ctx, ch)
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name string
		run  func() (int64, error)
		want int64
	}{
		{"count of no latch", count, -1},
		{"first count-down creates it", func() (int64, error) { return down("a") }, 1},
		{"count", count, 1},
		{"re-sent count-down counts once", func() (int64, error) { return down("a") }, 1},
		{"last count-down opens it", func() (int64, error) { return down("b") }, 0},
		{"count of an open latch", count, 0},
		{"count-down of an open latch", func() (int64, error) { return down("c") }, 0},
	}
	for _, s := range steps {
		got, err := s.run()
		if err != nil || got != s.want {
			t.Fatalf("%s = %d, %v; want %d", s.name, got, err, s.want)
		}
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != "*" {
		t.Fatalf("message on opening = %v, %v; want '*'", msg, err)
	}
	if keys, _ := mr.HKeys(hash); len(keys) != 2 {
		t.Fatalf("fields of an open latch = %v, want only :kind and count", keys)
	}

	mr.HSet("lockkit:{m}", ":kind", "reentrant")
	for name, run := range map[string]func() error{
		"count-down": func() error {
			return countDownScript.Run(ctx, rc, []string{"lockkit:{m}"}, 2, 60000, "x", ch, "latch").Err()
		},
		"count": func() error { return countScript.Run(ctx, rc, []string{"lockkit:{m}"}, "latch").Err() },
	} {
		if err := run(); !redis.HasErrorPrefix(err, "WRONGKIND") {
			t.Fatalf("%s of another kind's name = %v, want WRONGKIND", name, err)
		}
	}
	if v := mr.HGet("lockkit:{m}", "count"); v != "" {
		t.Fatal("a script changed another kind's hash")
	}
}
