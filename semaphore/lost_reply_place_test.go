package semaphore_test

import (
	"net"
	"os"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestAcquire_waiter_whose_taking_attempt_lost_its_reply_keeps_its_place:
// a semaphore of 1 is held, and w waits first, then x and y. The release
// wakes w, whose attempt takes the permit, but the reply is lost to a
// network error (a read timeout), which w's Acquire waits out. The permit
// nobody knows of is given back, and w, which still waits, must still be
// first in line: it is served before x and y, who came after it.
func TestAcquire_waiter_whose_taking_attempt_lost_its_reply_keeps_its_place(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	lost := &redistest.DropReply{Match: semaphore.RunsAcquire, Err: &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}}
	s, name := newSemaphore(t, rc, 1)
	held := mustAcquire(t, s, 1)
	ctx := redistest.Ctx(t, redistest.Hang)
	served := make(chan string, 3)
	for i, who := range []string{"w", "x", "y"} {
		wc := rc
		if who == "w" {
			wc = srv.HookedClient(t, lost)
		}
		waiter := semaphore.New(redistest.Lockkit(t, wc), name, 1)
		go func() {
			p, err := waiter.Acquire(ctx, 1)
			if err != nil {
				t.Errorf("%s's Acquire: %v", who, err)
				served <- who + " failed"
				return
			}
			served <- who
			if err := p.Release(ctx); err != nil {
				t.Errorf("%s's Release: %v", who, err)
			}
		}()
		waitQueued(t, rc, name, i+1)
	}
	lost.Arm()
	mustRelease(t, held)
	for _, want := range []string{"w", "x", "y"} {
		if got := redistest.Receive(t, served, redistest.Hang, "the waiters to be served"); got != want {
			t.Fatalf("%s served when %s was next", got, want)
		}
	}
	if lost.Armed() {
		t.Fatal("no acquire's reply was lost")
	}
}
