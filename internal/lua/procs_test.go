package lua_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestMutex_refused_attempts_register_their_process checks that a refused
// acquire that names its process registers it, in arrival order, with a TTL,
// and that taking the lock ends or keeps the registration as its waiters
// argument says.
func TestMutex_refused_attempts_register_their_process(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		held := l.acquire("holder", "", "")
		if held[0] != 1 {
			t.Fatalf("acquire = %v", held)
		}
		l.wantProcs()
		if got := l.acquire("b", "p1", "0"); got[0] != 0 || got[1] <= 0 {
			t.Fatalf("refused acquire = %v, want {0, pttl}", got)
		}
		l.acquire("c", "p2", "1")
		l.wantProcs("p1", "p2")
		l.acquire("b", "p1", "1") // refused again: keeps its place
		l.wantProcs("p1", "p2")
		if got := l.acquire("holder", "", ""); got[0] != 2 {
			t.Fatalf("re-entry = %v", got)
		}
		l.wantProcs("p1", "p2")

		if n := l.releaseAs("holder", held[1], "u1"); n != 1 {
			t.Fatalf("partial release = %d, want 1", n)
		}
		l.release("holder", held[1]) // wakes nobody listening: both are skipped
		l.wantProcs()

		// Taking the lock with others of the process still waiting keeps
		// the registration; as the process's last waiter, it ends it.
		got := l.acquire("c", "p2", "2")
		l.wantProcs("p2")
		l.release("c", got[1])
		got = l.acquire("c", "p2", "1")
		l.wantProcs()
		l.release("c", got[1])
	})
}

// TestMutex_release_wakes_the_process_registered_first checks that a
// release wakes one process, the one registered first among those that
// listen, on its own channel, and no other: the next in line is only told
// how long the lock is kept for the woken one (notify.Standby).
func TestMutex_release_wakes_the_process_registered_first(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		held := l.acquire("holder", "", "")
		gone, p2, p3 := "gone", l.listen("p2"), l.listen("p3")
		l.acquire("a", gone, "1") // registered, not listening
		l.acquire("b", "p2", "1")
		l.acquire("c", "p3", "1")
		l.release("holder", held[1])
		wantMessage(t, p2, "1")
		wantMessage(t, p3, "s100")
		wantQuiet(t, p3)
		l.wantProcs("p3")

		// pass.lua: p2 cannot use its turn; the lock is free, so p3 is woken.
		l.pass(1)
		wantMessage(t, p3, "1")
		l.wantProcs()
	})
}

// TestMutex_a_woken_process_has_the_free_lock_kept_for_it checks that the
// lock a release frees for the process it woke is refused to others (a
// process that releases and locks again at once, say) until the woken one
// takes it, or for handoff time at most.
func TestMutex_a_woken_process_has_the_free_lock_kept_for_it(t *testing.T) {
	mr, c := redistest.Mini(t)
	l := newProcsLock(t, c)
	held := l.acquire("holder", "", "")
	l.listen("p2")
	l.acquire("w", "p2", "1")
	l.release("holder", held[1])
	// The releaser locks again at once, as another process: refused, and
	// told to try again once the hand-off is over (not a lease later: the
	// woken process may never take its turn).
	if got := l.acquire("holder", "p1", "0"); got[0] != 0 || got[1] <= 0 || got[1] > 100 {
		t.Fatalf("acquire while the lock is kept for another = %v, want {0, at most 100 ms}", got)
	}
	l.wantProcs("p1")
	if got := l.acquire("spin", "", ""); got[0] != 0 {
		t.Fatalf("acquire naming no process while the lock is kept = %v, want refused", got)
	}
	if got := l.acquire("try", "p3", "n"); got[0] != 0 {
		t.Fatalf("a try of another process while the lock is kept = %v, want refused", got)
	}
	l.wantProcs("p1")                  // a try registers nothing
	got := l.acquire("try", "p2", "n") // a try of the woken process may take it
	if got[0] != 1 {
		t.Fatalf("the woken process's try = %v, want the lock", got)
	}
	l.release("try", got[1]) // wakes nobody listening: p1 is skipped

	// A woken process that never comes: the lock is others' again after
	// the hand-off.
	l.listen("p3")
	held = l.acquire("holder", "", "")
	l.acquire("w", "p3", "1")
	l.release("holder", held[1])
	if got := l.acquire("other", "", ""); got[0] != 0 {
		t.Fatalf("acquire during the hand-off = %v, want refused", got)
	}
	mr.FastForward(100 * time.Millisecond)
	got = l.acquire("other", "", "")
	if got[0] != 1 {
		t.Fatalf("acquire after the hand-off = %v, want the lock", got)
	}
	l.release("other", got[1])

	// A woken process that passes its turn on with nobody to take it: the
	// lock is no longer kept.
	held = l.acquire("holder2", "", "")
	l.acquire("w", "p3", "1")
	l.release("holder2", held[1])
	l.pass(0)
	if got := l.acquire("other2", "", ""); got[0] != 1 {
		t.Fatalf("acquire after a pass with nobody to take it = %v, want the lock", got)
	}
}

// TestMutex_a_process_refused_while_the_lock_is_kept_tries_again_in_its_turn
// checks the time an attempt refused while the free lock is kept for a
// woken process tells its caller to wait: the keep's end for the first in
// line (who takes the lock if the woken process never comes), and 100 ms
// more for each process registered ahead, so that the processes in line
// do not all try again at once when the keep ends.
func TestMutex_a_process_refused_while_the_lock_is_kept_tries_again_in_its_turn(t *testing.T) {
	_, c := redistest.Mini(t)
	l := newProcsLock(t, c)
	held := l.acquire("holder", "", "")
	for _, p := range []string{"p2", "p3"} {
		l.listen(p)
		l.acquire("w"+p, p, "1")
	}
	l.release("holder", held[1]) // wakes p2, and keeps the lock for it
	l.wantProcs("p3")
	// The releaser locks again at once, as p1: registered behind p3.
	if got := l.acquire("holder", "p1", "1"); got[0] != 0 || got[1] <= 100 || got[1] > 200 {
		t.Fatalf("acquire of the second in line while the lock is kept = %v, want {0, over 100 and at most 200 ms}", got)
	}
	l.wantProcs("p3", "p1")
	if got := l.acquire("wp3", "p3", "1"); got[0] != 0 || got[1] <= 0 || got[1] > 100 {
		t.Fatalf("acquire of the first in line while the lock is kept = %v, want {0, at most 100 ms}", got)
	}
	if got := l.acquire("try", "p1", "n"); got[0] != 0 || got[1] <= 0 || got[1] > 100 {
		t.Fatalf("a try of the second in line while the lock is kept = %v, want {0, at most 100 ms}", got)
	}
	l.wantProcs("p3", "p1")
}

// TestMutex_release_tells_the_next_process_that_listens_how_long_the_lock_is_kept
// checks that the word of how long the free lock is kept for the woken
// process (notify.Standby) goes to the next process in line that still
// listens: one registered that no longer does is taken out of the line.
func TestMutex_release_tells_the_next_process_that_listens_how_long_the_lock_is_kept(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		held := l.acquire("holder", "", "")
		p2, p3 := l.listen("p2"), l.listen("p3")
		l.acquire("b", "p2", "1")
		l.acquire("a", "gone", "1") // registered, not listening
		l.acquire("c", "p3", "1")
		l.release("holder", held[1])
		wantMessage(t, p2, "1")
		wantMessage(t, p3, "s100")
		l.wantProcs("p3")
	})
}

// TestMutex_release_tells_the_next_three_processes_when_to_try checks that
// a release tells the three processes in line after the woken one when to
// try, each 100 ms after the one before it, so that a few in a row that
// never come do not keep the others waiting for the holder's lease; the
// fourth is told nothing.
func TestMutex_release_tells_the_next_three_processes_when_to_try(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		held := l.acquire("holder", "", "")
		var ps []*redis.PubSub
		for i := range 5 {
			p := fmt.Sprintf("p%d", i)
			ps = append(ps, l.listen(p))
			l.acquire("w"+p, p, "1")
		}
		l.release("holder", held[1])
		wantMessage(t, ps[0], "1")
		wantMessage(t, ps[1], "s100")
		wantMessage(t, ps[2], "s200")
		wantMessage(t, ps[3], "s300")
		wantQuiet(t, ps[4])
		l.wantProcs("p1", "p2", "p3", "p4")
	})
}

// TestMutex_pass_leaves_a_taken_lock_to_its_release checks that a turn
// passed on while the lock is held wakes nobody: the release will.
func TestMutex_pass_leaves_a_taken_lock_to_its_release(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		held := l.acquire("holder", "", "")
		p := l.listen("p")
		l.acquire("w", "p", "1")
		l.pass(0)
		wantQuiet(t, p)
		l.wantProcs("p")
		l.release("holder", held[1])
		wantMessage(t, p, "1")
	})
}

// TestMutex_force_wakes_every_process checks that a force unlock wakes
// every waiter of every registered process and ends the registrations.
func TestMutex_force_wakes_every_process(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		l.acquire("holder", "", "")
		p1, p2 := l.listen("p1"), l.listen("p2")
		l.acquire("a", "p1", "1")
		l.acquire("b", "p2", "1")
		l.force()
		wantMessage(t, p1, "*")
		wantMessage(t, p2, "*")
		l.wantProcs()
	})
}

// TestMutex_release_remembers_its_token_in_a_key_of_its_own checks that the
// release that ends a hold leaves one key, PREFIX:{NAME}:released:TOKEN,
// that expires with the window, and that a retry of that release answers
// 0 (done) while the key is there, also after another owner took the
// lock, which the retry leaves alone; once the key is gone, the retry
// answers -1 (not held).
func TestMutex_release_remembers_its_token_in_a_key_of_its_own(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		ctx := context.Background()
		l := newProcsLock(t, c)
		held := l.acquire("a", "", "")
		if n := l.releaseAs("a", held[1], "u1"); n != 0 {
			t.Fatalf("release = %d, want 0", n)
		}
		key := fmt.Sprint(l.keys[2], ":", held[1])
		if ttl := c.PTTL(ctx, key).Val(); ttl <= 0 || ttl > 10*time.Second {
			t.Fatalf("%s has TTL %v, want one of at most the 10 s window", key, ttl)
		}
		if n := c.Exists(ctx, l.keys[2]).Val(); n != 0 {
			t.Fatalf("%s exists; released tokens are kept in keys of their own", l.keys[2])
		}

		other := l.acquire("b", "", "")
		if n := l.releaseAs("a", held[1], "u1"); n != 0 {
			t.Fatalf("retried release = %d, want 0: it took effect", n)
		}
		if got := l.acquire("b", "", ""); got[0] != 2 || got[1] != other[1] {
			t.Fatalf("b re-enters with %v, want {2, %d}: the retry left b's hold alone", got, other[1])
		}

		if err := c.Del(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}
		if n := l.releaseAs("a", held[1], "u1"); n != -1 {
			t.Fatalf("retried release after the window = %d, want -1", n)
		}
	})
}
