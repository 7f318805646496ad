package lockkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestSharedGoRedisClient_closing_one_Client_leaves_the_others_locking_and_waiting
// makes, for every kind, a lockkit Client of a go-redis client that other
// Clients share (one of them waiting throughout), holds and waits through
// it, and closes it: its waiter returns ErrClosed and its release still
// frees the lock; the other Client's waiter gets its lock when released,
// and two
// fresh Clients of the same go-redis client contend for a lock as usual
// (see contend): Close closes nothing the go-redis client's other users
// need, the pub/sub connections of the other Clients included.
func TestSharedGoRedisClient_closing_one_Client_leaves_the_others_locking_and_waiting(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	eachKindInParallel(t, func(t *testing.T, ctx context.Context, k contended, name string) {
		// Another Client of rc, waiting throughout on a lock of its own.
		other := redistest.Lockkit(t, rc)
		otherName := redistest.Unique(t)
		otherRelease, err := k.hold(ctx, redistest.Lockkit(t, rc), otherName)
		if err != nil {
			t.Fatalf("other holder: %v", err)
		}
		otherStarted, otherTrace := waitStarted()
		other.AddTrace(otherTrace)
		otherGot := startWait(ctx, t, k, other, otherName, otherStarted)

		// The Client closed: it holds name, and waits for name2, which
		// yet another Client of rc holds.
		started, trace := waitStarted()
		closing := lockkit.New(rc, lockkit.WithTrace(trace))
		release, err := k.hold(ctx, closing, name)
		if err != nil {
			t.Fatalf("holder: %v", err)
		}
		name2 := redistest.Unique(t)
		release2, err := k.hold(ctx, redistest.Lockkit(t, rc), name2)
		if err != nil {
			t.Fatalf("holder of the lock waited for: %v", err)
		}
		endsAtClose(t, startWait(ctx, t, k, closing, name2, started), closing.Close, lockkit.ErrClosed, "the closed Client's waiter")
		if err := release(ctx); err != nil && !errors.Is(err, lockkit.ErrClosed) {
			t.Errorf("closed Client's release = %v; want nil or ErrClosed", err)
		}
		if err := release2(ctx); err != nil {
			t.Errorf("release of the lock waited for: %v", err)
		}

		contend(t, k, rc, rc)
		if err := otherRelease(ctx); err != nil {
			t.Fatalf("other holder's release: %v", err)
		}
		if o := redistest.Receive(t, otherGot, wakeBound, "the other Client's waiter to get the lock"); o.err != nil {
			t.Fatalf("other Client's waiter: %v", o.err)
		} else if err := o.release(ctx); err != nil {
			t.Errorf("other Client's waiter's release: %v", err)
		}
		if k.kind == "latch" {
			return // an opened latch keeps its hash for a day
		}
		for _, n := range []string{name, name + ":a", name + ":b", name2, name2 + ":a", name2 + ":b"} {
			redistest.AssertCleanWithin(t, rc, n, redistest.Hang)
		}
	})
}
