package redistest

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestDropReply_drops_one_reply_once_armed(t *testing.T) {
	mr, c := Mini(t)
	hook := &DropReply{}
	c.AddHook(hook)
	ctx := context.Background()

	if err := c.Set(ctx, "a", "1", 0).Err(); err != nil {
		t.Fatalf("SET while disarmed: %v", err)
	}
	hook.Arm()
	if !hook.Armed() {
		t.Fatal("Armed() = false after Arm")
	}
	if err := c.Set(ctx, "b", "2", 0).Err(); !errors.Is(err, ErrReplyDropped) {
		t.Fatalf("SET while armed = %v, want ErrReplyDropped", err)
	}
	if got, _ := mr.Get("b"); got != "2" {
		t.Fatalf("b = %q on the server; the command whose reply was dropped must still run", got)
	}
	if hook.Armed() {
		t.Fatal("still armed after dropping a reply")
	}
	if err := c.Set(ctx, "c", "3", 0).Err(); err != nil {
		t.Fatalf("SET after the drop: %v", err)
	}

	// A failing command keeps its own error and leaves the hook armed.
	hook.Arm()
	if err := c.HSet(ctx, "a", "f", "v").Err(); err == nil || errors.Is(err, ErrReplyDropped) {
		t.Fatalf("HSET on a string = %v, want the server's error", err)
	}
	if !hook.Armed() {
		t.Fatal("a failed command disarmed the hook")
	}

	// Pipelines pass through.
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "d", "4", 0)
		return nil
	}); err != nil {
		t.Fatalf("pipeline while armed: %v", err)
	}
	if !hook.Armed() {
		t.Fatal("a pipeline disarmed the hook")
	}
}

func TestDropReply_Match_selects_the_command(t *testing.T) {
	_, c := Mini(t)
	hook := &DropReply{Match: func(cmd redis.Cmder) bool { return cmd.Name() == "get" }}
	c.AddHook(hook)
	ctx := context.Background()
	hook.Arm()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET, which does not match: %v", err)
	}
	if err := c.Get(ctx, "k").Err(); !errors.Is(err, ErrReplyDropped) {
		t.Fatalf("GET, which matches = %v, want ErrReplyDropped", err)
	}
}

func TestDropReply_spares_the_connection_handshake(t *testing.T) {
	mr, _ := Mini(t)
	// A fresh client: its first command opens a connection, whose
	// handshake goes through the hook first.
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer c.Close()
	hook := &DropReply{}
	c.AddHook(hook)
	hook.Arm()
	if err := c.Set(context.Background(), "k", "v", 0).Err(); !errors.Is(err, ErrReplyDropped) {
		t.Fatalf("first SET = %v, want its own reply dropped", err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("k = %q on the server, want v", got)
	}
}
