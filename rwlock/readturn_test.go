package rwlock

import (
	"testing"
	"time"
)

// TestUnlockScript_gives_the_readers_a_turn_after_a_downgrade checks the
// readers' turn: when a write release leaves the lock read-locked by the
// owner's own read hold, the intent a woken writer registers again holds
// back no reader for handOff, and then holds back new readers as before.
// A write release that frees the lock gives no such turn: a writer may
// take the free lock.
func TestUnlockScript_gives_the_readers_a_turn_after_a_downgrade(t *testing.T) {
	r := newRig(t)
	r.lock("w", 0)
	tok := r.us(0)
	r.rlock("w", true)
	if a := r.wait("w2", time.Minute); a.count != 0 {
		t.Fatalf("writer under the writer = %+v, want refused", a)
	}
	r.published()
	if n := r.unlock("w", tok, "u1"); n != 0 {
		t.Fatalf("unlock = %d, want 0", n)
	}
	r.wantPublished("r *", "w 1")
	if a := r.wait("w2", time.Minute); a.count != 0 {
		t.Fatalf("writer under the downgraded owner = %+v, want refused", a)
	}
	if s := r.state(""); s.WaitingWriters != 1 || s.Mode != ReadLocked {
		t.Fatalf("state = %+v; want read-locked, the writer waiting again", s)
	}
	r.at(handOff - time.Millisecond)
	if a := r.rlock("a", true); a.count != 1 {
		t.Fatalf("a reader within the readers' turn = %+v, want admitted", a)
	}
	r.at(handOff)
	if a := r.rlock("b", true); a.count != 0 {
		t.Fatalf("a reader once the readers' turn is over = %+v, want held back by the intent", a)
	}

	// A write release that frees the lock gives no turn.
	f := newRig(t)
	f.lock("w", 0)
	if a := f.wait("w2", time.Minute); a.count != 0 {
		t.Fatalf("writer under the writer = %+v, want refused", a)
	}
	f.unlock("w", f.us(0), "u1")
	if a := f.wait("w2", time.Minute); a.count != 1 {
		t.Fatalf("writer after the free = %+v, want the lock", a)
	}
	if _, ok := f.hash()[":readturn"]; ok {
		t.Fatal("a write release that freed the lock gave the readers a turn")
	}
}
