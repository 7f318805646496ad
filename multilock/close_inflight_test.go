package multilock_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// wantClosedNotObtained checks that err, the error of what, matches
// ErrClosed and is not a wait that ran out.
func wantClosedNotObtained(t *testing.T, what string, err error) {
	t.Helper()
	redistest.WantErr(t, err, lockkit.ErrClosed)
	if errors.Is(err, lockkit.ErrNotObtained) {
		t.Fatalf("%s = %v; want ErrClosed, not a wait that ran out", what, err)
	}
}

// TestLock_member_acquire_on_its_way_when_its_Client_closes_returns_ErrClosed_and_gives_back_every_member:
// m holds a and its acquire of b is on its way when b's Client closes;
// the acquire then takes b. Lock returns ErrClosed, and has given back
// both b (which its member gives back) and a when it returns, whether a
// is on another Client or on b's (whose Close reported a's hold lost):
// nothing is left in Redis, and another owner takes both at once.
func TestLock_member_acquire_on_its_way_when_its_Client_closes_returns_ErrClosed_and_gives_back_every_member(t *testing.T) {
	offAndOn(t, "a_on_another_Client", "a_on_b_s_Client", func(t *testing.T, same bool) {
		s := redistest.StartServer(t)
		rc, rcB := s.Client(t), s.Client(t)
		a, b := "a-"+redistest.Unique(t), "b-"+redistest.Unique(t)
		// Holds up b's scripts alone.
		silent := &redistest.Silence{Match: func(cmd redis.Cmder) bool {
			return redistest.IsScript(cmd) && slices.Contains(cmd.Args(), any(lockKey(b)))
		}, Max: 2 * redistest.Hang}
		defer silent.Off()
		rcB.AddHook(silent)
		c, cB := redistest.Lockkit(t, rc), redistest.Lockkit(t, rcB)
		mb := reentrant.New(cB, b)
		openConnections(t, mb)
		ma := reentrant.New(c, a)
		if same {
			ma = reentrant.New(cB, a)
		}
		m := multilock.New([]lockkit.Locker{mb, ma})

		silent.On()
		done := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), m)
		closed := redistest.CloseWhileHeldUp(t, cB, silent, "the acquire")
		err := redistest.Receive(t, done, redistest.Hang, "Lock whose acquire of b was on its way when b's Client closed")
		if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
			t.Fatal(err)
		}
		wantClosedNotObtained(t, "Lock whose acquire of b was on its way when b's Client closed", err)
		redistest.AssertClean(t, rc, a)
		redistest.AssertClean(t, rc, b)
		other := multilock.New([]lockkit.Locker{reentrant.New(c, a), reentrant.New(c, b)})
		if ok, err := other.TryLock(redistest.Ctx(t, redistest.Hang)); !ok || err != nil {
			t.Fatalf("TryLock of a and b by another owner = %v, %v; want true", ok, err)
		}
		redistest.MustUnlock(t, other)
	})
}

// TestRedLock_node_acquire_on_its_way_when_its_Client_closes_returns_ErrClosed_and_gives_back_every_node:
// the acquire of r's round on node 1 is on its way when node 1's Client
// closes (well within the node timeout), and then takes its part; nodes 0
// and 2 granted theirs. Lock, and TryLock alike, returns ErrClosed, holds
// nothing, and has given back every node's part when it returns: nothing
// is left on any node.
func TestRedLock_node_acquire_on_its_way_when_its_Client_closes_returns_ErrClosed_and_gives_back_every_node(t *testing.T) {
	for _, what := range []string{"Lock", "TryLock"} {
		t.Run(what, func(t *testing.T) {
			_, clients := masters(t, 3)
			silent := &redistest.Silence{Match: func(cmd redis.Cmder) bool { return multilock.RunsScript(cmd, "acquire") }, Max: 2 * redistest.Hang}
			defer silent.Off()
			clients[1].(*redis.Client).AddHook(silent)
			lcs := lockkits(t, clients)
			name := redistest.Unique(t)
			r := multilock.NewRedLock(lcs, name, multilock.WithNodeTimeout(redistest.Hang))
			openConnections(t, r)

			silent.On()
			var call lockCall
			for _, c := range lockCalls(r) {
				if c.what == what {
					call = c
				}
			}
			done := make(chan error, 1)
			go func() { done <- call.call(redistest.Ctx(t, redistest.Hang)) }()
			closed := redistest.CloseWhileHeldUp(t, lcs[1], silent, "the acquire")
			what := what + " whose acquire on node 1 was on its way when its Client closed"
			err := redistest.Receive(t, done, redistest.Hang, what)
			if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
				t.Fatal(err)
			}
			wantClosedNotObtained(t, what, err)
			if r.Token() != 0 || r.Lost() != nil {
				t.Fatalf("after a %s, Token() = %d and Lost() = %v; want 0 and nil", what, r.Token(), r.Lost())
			}
			assertCleanAll(t, clients, name)
		})
	}
}
