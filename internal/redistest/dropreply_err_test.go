package redistest

import (
	"errors"
	"io"
	"testing"
)

// TestDropReply_Err_is_the_error_the_caller_gets: with Err set, the
// command whose reply is dropped still runs, and its caller gets Err
// instead of ErrReplyDropped.
func TestDropReply_Err_is_the_error_the_caller_gets(t *testing.T) {
	mr, c := Mini(t)
	hook := &DropReply{Err: io.ErrUnexpectedEOF}
	c.AddHook(hook)
	ctx := Ctx(t, waitTimeout)
	hook.Arm()
	err := c.Set(ctx, "k", "v", 0).Err()
	if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrReplyDropped) {
		t.Fatalf("SET while armed = %v, want io.ErrUnexpectedEOF", err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("k = %q on the server; the command whose reply was dropped must still run", got)
	}
}
