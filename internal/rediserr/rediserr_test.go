package rediserr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func TestUnreachable_tells_a_node_that_cannot_be_reached_from_one_that_answered(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, err := range []error{refused, io.EOF, io.ErrUnexpectedEOF, redis.ErrPoolTimeout, fmt.Errorf("lockkit: lock %q: %w", "x", io.EOF)} {
		if !Unreachable(err) {
			t.Errorf("Unreachable(%v) = false, want true", err)
		}
	}
	for _, err := range []error{nil, context.Canceled, redis.Nil, errors.New("MOVED 1 127.0.0.1:1")} {
		if Unreachable(err) {
			t.Errorf("Unreachable(%v) = true, want false", err)
		}
	}
}

func TestReply_reads_the_prefix_of_an_error_reply(t *testing.T) {
	mr := miniredis.RunT(t)
	rc := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rc.Close()
	ctx := context.Background()
	if err := rc.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := rc.LPush(ctx, "k", "x").Err() // WRONGTYPE …
	if !Reply(err, "MOVED", "WRONGTYPE") || Reply(err, "MOVED", "ASK") {
		t.Errorf("Reply(%v) does not read its prefix", err)
	}
	if Reply(errors.New("WRONGTYPE not a reply"), "WRONGTYPE") || Reply(nil, "WRONGTYPE") {
		t.Error("Reply took an error that is not an error reply for one")
	}
}
