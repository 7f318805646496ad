package redistest

import (
	"context"
	"errors"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// armable is a hook that acts once armed: a DropReply, a RefuseSend.
type armable interface {
	redis.Hook
	Arm()
}

// miniArmed starts a miniredis server and returns it, a client of it to
// which hook was added and then armed, and a ctx that ends after
// waitTimeout.
func miniArmed(t *testing.T, hook armable) (*miniredis.Miniredis, *redis.Client, context.Context) {
	t.Helper()
	mr, c := Mini(t)
	c.AddHook(hook)
	ctx := Ctx(t, waitTimeout)
	hook.Arm()
	return mr, c, ctx
}

func TestDropReply_drops_one_reply_once_armed(t *testing.T) {
	mr, c := Mini(t)
	hook := &DropReply{}
	c.AddHook(hook)
	ctx := Ctx(t, waitTimeout)

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
	_, c, ctx := miniArmed(t, &DropReply{Match: func(cmd redis.Cmder) bool { return cmd.Name() == "get" }})
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
	if err := c.Set(Ctx(t, waitTimeout), "k", "v", 0).Err(); !errors.Is(err, ErrReplyDropped) {
		t.Fatalf("first SET = %v, want its own reply dropped", err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("k = %q on the server, want v", got)
	}
}

// countingCases sends commands of every shape and says how a Counter must
// count them; the handshake of the client's first connection comes first.
func countingCases(t *testing.T, c redis.UniversalClient, counter *Counter) {
	t.Helper()
	ctx := Ctx(t, waitTimeout)
	script := redis.NewScript("return 2")
	for _, step := range []struct {
		what           string
		send           func() error
		total, scripts int64
	}{
		{"a first command, on a new connection", func() error { return c.Ping(ctx).Err() }, 1, 0},
		{"a pipeline of three", func() error {
			_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "{k}a", 1, 0)
				p.Set(ctx, "{k}b", 2, 0)
				p.Get(ctx, "{k}a")
				return nil
			})
			return err
		}, 3, 0},
		{"EVAL", func() error { return c.Eval(ctx, "return 1", []string{"{k}"}).Err() }, 1, 1},
		{"SCRIPT LOAD", func() error { return script.Load(ctx, c).Err() }, 1, 0},
		{"EVALSHA", func() error { return script.EvalSha(ctx, c, []string{"{k}"}).Err() }, 1, 1},
		{"EVAL_RO", func() error { return c.EvalRO(ctx, "return 1", []string{"{k}"}).Err() }, 1, 1},
		{"a transaction of one", func() error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "{k}n")
				return nil
			})
			return err
		}, 3, 0}, // MULTI, INCR, EXEC
	} {
		total, scripts := counter.Total(), counter.Scripts()
		if err := step.send(); err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		if got := counter.Total() - total; got != step.total {
			t.Errorf("%s: Total() grew by %d, want %d", step.what, got, step.total)
		}
		if got := counter.Scripts() - scripts; got != step.scripts {
			t.Errorf("%s: Scripts() grew by %d, want %d", step.what, got, step.scripts)
		}
	}
	counter.Reset()
	if counter.Total() != 0 || counter.Scripts() != 0 {
		t.Fatalf("after Reset Total() = %d, Scripts() = %d; want 0", counter.Total(), counter.Scripts())
	}
}

func TestCounter_counts_commands_not_the_handshake(t *testing.T) {
	ForEachBackend(t, Backends(), func(t *testing.T, c redis.UniversalClient) {
		counter := NewCounter()
		c.AddHook(counter.Hook())
		countingCases(t, c, counter)
	})
}

func TestCountCommands_counts_from_now_on(t *testing.T) {
	_, c := Mini(t)
	ctx := context.Background()
	if err := c.Set(ctx, "before", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	counter := CountCommands(c)
	if err := c.Set(ctx, "after", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n := counter.Total(); n != 1 {
		t.Fatalf("Total() = %d, want 1 (only the command sent after CountCommands)", n)
	}
}

func TestRefuseSend_fails_one_selected_command_without_sending_it(t *testing.T) {
	hook := &RefuseSend{Match: func(cmd redis.Cmder) bool { return cmd.Name() == "set" }}
	mr, c, ctx := miniArmed(t, hook)
	if err := c.Get(ctx, "a").Err(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET, which does not match = %v, want redis.Nil", err)
	}
	if err := c.Set(ctx, "b", "2", 0).Err(); !errors.Is(err, ErrNotSent) {
		t.Fatalf("SET while armed = %v, want ErrNotSent", err)
	}
	if mr.Exists("b") {
		t.Fatal("b is on the server; the refused command must not be sent")
	}
	if hook.Armed() {
		t.Fatal("still armed after refusing a command")
	}
	if err := c.Set(ctx, "c", "3", 0).Err(); err != nil {
		t.Fatalf("SET after the refusal: %v", err)
	}
}
