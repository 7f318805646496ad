package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestRespParser_counts_commands_split_at_any_byte feeds a stream of
// requests in pieces of every size and checks the count never changes.
func TestRespParser_counts_commands_split_at_any_byte(t *testing.T) {
	stream := "*1\r\n$4\r\nPING\r\n" +
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$11\r\nwith\r\n*2\r\n$\r\n" + // a payload that looks like RESP
		"*0\r\n" +
		"*4\r\n$7\r\nEVALSHA\r\n$40\r\n" + strings.Repeat("a", 40) + "\r\n$1\r\n0\r\n$0\r\n\r\n"
	const want = 4
	for size := 1; size <= len(stream); size++ {
		var p respParser
		var cmds, bad int64
		for i := 0; i < len(stream); i += size {
			c, b := p.feed([]byte(stream[i:min(i+size, len(stream))]))
			cmds += c
			bad += b
		}
		if cmds != want || bad != 0 {
			t.Fatalf("pieces of %d bytes: %d commands, %d bad bytes; want %d, 0", size, cmds, bad, want)
		}
	}
}

// TestWireCounter_agrees_with_a_go_redis_hook sends single commands,
// scripts, a pipeline and a large value through a counting client, and
// checks the wire count against a go-redis hook's count of the same
// commands.
func TestWireCounter_agrees_with_a_go_redis_hook(t *testing.T) {
	requireRedis(t)
	srv, err := startServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	var wc wireCounter
	rdb := newGoRedis(srv.addr, 4, &wc)
	defer rdb.Close()
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil { // the handshake happens here
		t.Fatal(err)
	}
	var hooked atomic.Int64
	rdb.AddHook(countHook{&hooked})
	before := wc.commands.Load()

	big := strings.Repeat("x", 1<<20) // several writes
	if err := rdb.Set(ctx, "k", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := floorScript.Run(ctx, rdb, nil).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for range 10 {
			p.Incr(ctx, "n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := wc.commands.Load()-before, hooked.Load(); got != want || want < 13 {
		t.Fatalf("wire counted %d commands, hook %d (want ≥ 13, equal)", got, want)
	}
	if wc.bad.Load() != 0 {
		t.Fatalf("%d bytes did not parse as RESP", wc.bad.Load())
	}
}

// countHook counts every command go-redis processes, pipelined or not.
type countHook struct{ n *atomic.Int64 }

func (h countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}
