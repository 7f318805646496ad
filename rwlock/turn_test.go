package rwlock

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// procLock runs lock.lua for owner as Lock does on behalf of process
// proc, with waiters as the engine passes it ("0", "1", "2", or "n" for a
// TryLock, which claims nothing).
func (r *scriptRig) procLock(owner, proc, waiters string) reply {
	r.t.Helper()
	w, rd := holds(owner)
	claims := "1"
	if waiters == "n" {
		claims = "0"
	}
	return r.acquire(writeScripts.Acquire, w, lease.Milliseconds(), r.attempt(), rd, 0, claims, proc, waiters)
}

// listen subscribes to the own writers' channel of process p, and waits
// until the server confirms it, so that a release finds it listening.
// (Messages an earlier release sent to other channels may come first.)
func (r *scriptRig) listen(p string) {
	r.t.Helper()
	ch := r.k.wch + ":" + p
	if err := r.ps.Subscribe(r.ctx, ch); err != nil {
		r.t.Fatal(err)
	}
	for {
		m, err := r.ps.ReceiveTimeout(r.ctx, 5*time.Second)
		if err != nil {
			r.t.Fatal(err)
		}
		if s, ok := m.(*redis.Subscription); ok && s.Kind == "subscribe" && s.Channel == ch {
			return
		}
	}
}

// TestLockScript_keeps_the_freed_lock_for_the_woken_writer_process checks
// that a release that wakes a process's writers keeps the free lock for
// them: a writer of another process (one that released and locks again at
// once, say) is refused until the woken process takes it, or for the
// hand-off time at most.
func TestLockScript_keeps_the_freed_lock_for_the_woken_writer_process(t *testing.T) {
	r := newRig(t)
	held := r.lock("holder", 0)
	r.listen("p2")
	if got := r.procLock("w", "p2", "1"); got.count != 0 {
		t.Fatalf("a writer's lock while held = %v, want refused", got)
	}
	if n := r.unlock("holder", held.token, "u1"); n != 0 {
		t.Fatalf("unlock = %d, want 0", n)
	}
	// The releaser locks again at once, as another process: refused, and
	// told to try again once the hand-off is over (not a lease later: the
	// woken process may never take its turn).
	got := r.procLock("holder", "p1", "0")
	if got.count != 0 || got.token <= 0 || got.token > 100 {
		t.Fatalf("lock while the lock is kept for another process = %v, want {0, at most 100 ms}", got)
	}
	if got := r.lock("plain", 0); got.count != 0 {
		t.Fatalf("lock naming no process while the lock is kept = %v, want refused", got)
	}
	if got := r.procLock("try", "p3", "n"); got.count != 0 {
		t.Fatalf("a TryLock of another process while the lock is kept = %v, want refused", got)
	}
	if _, ok := r.hash()[":claim"]; ok || len(r.hash()) != 0 {
		t.Fatalf("hash of a free lock = %v, want none", r.hash())
	}
	got = r.procLock("w", "p2", "1")
	if got.count != 1 {
		t.Fatalf("the woken process's lock = %v, want the lock", got)
	}
	r.unlock("w", got.token, "u2")

	// A woken process that never comes: the lock is others' again after
	// the hand-off.
	r.listen("p4")
	held = r.lock("holder", 0)
	r.procLock("w4", "p4", "1")
	r.unlock("holder", held.token, "u3")
	if got := r.lock("other", 0); got.count != 0 {
		t.Fatalf("lock during the hand-off = %v, want refused", got)
	}
	r.mr.FastForward(100 * time.Millisecond)
	if got := r.lock("other", 0); got.count != 1 {
		t.Fatalf("lock after the hand-off = %v, want the lock", got)
	}
}

// TestLockScript_a_process_refused_while_the_lock_is_kept_tries_again_in_its_turn
// checks the time a writer's attempt refused while the free lock is kept
// for a woken process tells it to wait: the keep's end for the first in
// line, and 100 ms more for each process registered ahead of its own.
func TestLockScript_a_process_refused_while_the_lock_is_kept_tries_again_in_its_turn(t *testing.T) {
	r := newRig(t)
	held := r.lock("holder", 0)
	for i, p := range []string{"p2", "p3"} {
		r.mr.SetTime(r.t0.Add(time.Duration(i) * time.Millisecond)) // registered in this order
		r.listen(p)
		r.procLock("w"+p, p, "1")
	}
	r.unlock("holder", held.token, "u1") // wakes p2, and keeps the lock for it
	r.mr.SetTime(r.t0.Add(2 * time.Millisecond))
	if got := r.procLock("holder", "p1", "1"); got.count != 0 || got.token <= 100 || got.token > 200 {
		t.Fatalf("lock of the second in line while the lock is kept = %v, want {0, over 100 and at most 200 ms}", got)
	}
	if got := r.procLock("wp3", "p3", "1"); got.count != 0 || got.token <= 0 || got.token > 100 {
		t.Fatalf("lock of the first in line while the lock is kept = %v, want {0, at most 100 ms}", got)
	}
	if got := r.procLock("try", "p1", "n"); got.count != 0 || got.token <= 0 || got.token > 100 {
		t.Fatalf("a TryLock of the second in line while the lock is kept = %v, want {0, at most 100 ms}", got)
	}
}

// TestPassScript_keeps_the_free_lock_for_the_next_process_only checks that
// a wake-up passed on keeps the free lock for the process it wakes, and
// with nobody to wake keeps it for no one.
func TestPassScript_keeps_the_free_lock_for_the_next_process_only(t *testing.T) {
	r := newRig(t)
	held := r.lock("holder", 0)
	r.listen("p2")
	r.listen("p3")
	r.procLock("w2", "p2", "1")
	r.procLock("w3", "p3", "1")
	r.unlock("holder", held.token, "u1") // wakes p2
	if n := r.int(passScript, r.k.wch); n != 1 {
		t.Fatalf("pass = %d, want p3 woken", n)
	}
	if got := r.procLock("w2", "p2", "1"); got.count != 0 {
		t.Fatalf("the passing process's lock = %v, want refused: the lock is p3's turn", got)
	}
	got := r.procLock("w3", "p3", "1")
	if got.count != 1 {
		t.Fatalf("p3's lock = %v, want the lock", got)
	}
	r.unlock("w3", got.token, "u2") // wakes p2
	if n := r.int(passScript, r.k.wch); n != 0 {
		t.Fatalf("pass with nobody left = %d, want 0", n)
	}
	if got := r.lock("other", 0); got.count != 1 {
		t.Fatalf("lock after a pass with nobody to take it = %v, want the lock", got)
	}
}
