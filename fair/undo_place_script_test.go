package fair

import (
	"strconv"
	"testing"
	"time"
)

// TestUndoScript_puts_a_hold_taken_from_the_queue_back_first_in_line: an
// acquire that takes the lock from the head of the queue keeps the
// entry's deadline in the hash; the undo of that acquire frees the lock
// and puts the owner back first in line, ahead of the waiters that were
// behind it and of those that joined since, and wakes it. Nothing is put
// back when the hold was not taken from the queue, when the owner left
// the queue since (leave.lua), or when the deadline has passed.
func TestUndoScript_puts_a_hold_taken_from_the_queue_back_first_in_line(t *testing.T) {
	const later = 60_000 // deadlines of the others: past the owner's
	// undoneToB undoes me's hold and checks that nothing was put back: the
	// lock is free, and b, alone in line, is woken.
	undoneToB := func(e *scriptEnv) {
		e.undo("me", 0, 0)
		e.wantFree()
		e.wantQueue("b")
		e.wantWoken("b")
	}
	t.Run("taken from the head: put back", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me", "b"}, 100, later)
		res := e.acquire("me", true)
		wantReply(t, res, 1, e.us())
		if got, want := e.fields()[":q:me"], strconv.FormatInt(e.now+wt.Milliseconds(), 10); got != want {
			t.Fatalf("':q:me' = %q, want the entry's deadline %s", got, want)
		}
		e.queued([]string{"c"}, later)
		if n := e.undo("me", 0, 0); n != 1 {
			t.Fatalf("undo = %d, want 1", n)
		}
		e.wantFree()
		e.wantQueue("me", "b", "c")
		e.wantDeadline("me", wt.Milliseconds())
		e.wantWoken("me")
	})
	t.Run("taken with nobody queued: nothing put back", func(t *testing.T) {
		e := newScriptEnv(t)
		wantReply(t, e.acquire("me", true), 1, e.us())
		e.queued([]string{"b"}, later)
		undoneToB(e)
	})
	t.Run("left since: nothing put back", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me", "b"}, 100, later)
		e.acquire("me", true)
		if n := e.leave("me"); n != 0 {
			t.Fatalf("leave = %d, want 0: the entry went with the acquire", n)
		}
		e.wantCount("me", 1)
		undoneToB(e)
	})
	t.Run("deadline passed: nothing put back", func(t *testing.T) {
		e := newScriptEnv(t)
		e.queued([]string{"me", "b"}, 100, later)
		e.acquire("me", true)
		e.now += wt.Milliseconds()
		e.mr.SetTime(time.UnixMilli(e.now))
		undoneToB(e)
	})
}
