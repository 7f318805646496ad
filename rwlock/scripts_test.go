package rwlock

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lease is the lease every hold of the rig takes.
const lease = 30 * time.Second

// scriptRig runs the scripts directly on miniredis with its clock pinned,
// with the ARGV the engine sends (see core.Spec), and listens on the
// lock's channels.
type scriptRig struct {
	t   *testing.T
	ctx context.Context
	mr  *miniredis.Miniredis
	c   *redis.Client
	lc  *lockkit.Client // over c
	k   keys
	t0  time.Time
	ps  *redis.PubSub

	attempts int // acquires sent: the n-th has attempt id "aN"
}

func newRig(t *testing.T) *scriptRig {
	mr, c := redistest.Mini(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	r := &scriptRig{
		t: t, ctx: ctx, mr: mr, c: c, lc: redistest.Lockkit(t, c), t0: time.Now().Truncate(time.Second),
		k: newKeys(core.NewKeys(config.DefaultPrefix, redistest.Unique(t), false)),
	}
	mr.SetTime(r.t0)
	r.ps = c.Subscribe(ctx, r.k.rch, r.k.wch)
	t.Cleanup(func() { _ = r.ps.Close() })
	for range 2 {
		if _, err := r.ps.ReceiveTimeout(ctx, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// reply is an acquire's reply: {count, token} when held, {0, wait ms}
// when refused, {-1, 0} for a refused upgrade.
type reply struct{ count, token int64 }

// us returns the server time t0 + d in µs: the token of the first fresh
// hold while the clock stands at t0 + d (the counter is behind it); each
// further fresh hold at that time gets the counter + 1.
func (r *scriptRig) us(d time.Duration) int64 { return r.t0.Add(d).UnixMicro() }

// at sets the server clock to t0 + d.
func (r *scriptRig) at(d time.Duration) { r.mr.SetTime(r.t0.Add(d)) }

func (r *scriptRig) acquire(s *redis.Script, args ...any) reply {
	r.t.Helper()
	res, err := s.Run(r.ctx, r.c, r.k.all, args...).Int64Slice()
	if err != nil {
		r.t.Fatal(err)
	}
	if len(res) != 2 {
		r.t.Fatalf("reply %v, want two numbers", res)
	}
	return reply{res[0], res[1]}
}

func (r *scriptRig) int(s *redis.Script, args ...any) int64 {
	r.t.Helper()
	n, err := s.Run(r.ctx, r.c, r.k.all, args...).Int64()
	if err != nil {
		r.t.Fatal(err)
	}
	return n
}

// lock runs lock.lua for owner, as TryLock does when intent is 0; intent
// 0 registers none. It does not claim the lock.
func (r *scriptRig) lock(owner string, intent time.Duration) reply {
	r.t.Helper()
	w, rd := holds(owner)
	return r.acquire(writeScripts.Acquire, w, lease.Milliseconds(), r.attempt(), rd, intent.Milliseconds(), "0")
}

// wait runs lock.lua for owner as Lock does: a busy lock is claimed.
func (r *scriptRig) wait(owner string, intent time.Duration) reply {
	r.t.Helper()
	w, rd := holds(owner)
	return r.acquire(writeScripts.Acquire, w, lease.Milliseconds(), r.attempt(), rd, intent.Milliseconds(), "1")
}

// attempt returns the attempt id of the next acquire.
func (r *scriptRig) attempt() string {
	r.attempts++
	return fmt.Sprintf("a%d", r.attempts)
}

func (r *scriptRig) rlock(owner string, prefer bool) reply {
	r.t.Helper()
	w, rd := holds(owner)
	p := "0"
	if prefer {
		p = "1"
	}
	return r.acquire(readScripts.Acquire, rd, lease.Milliseconds(), r.attempt(), w, p)
}

func (r *scriptRig) unlock(owner string, token int64, id string) int64 {
	r.t.Helper()
	w, _ := holds(owner)
	return r.int(writeScripts.Release, w, token, id, core.ReleaseWindow.Milliseconds(), r.k.rch, r.k.wch, handOff.Milliseconds())
}

func (r *scriptRig) runlock(owner string, token int64, id string) int64 {
	r.t.Helper()
	_, rd := holds(owner)
	return r.int(readScripts.Release, rd, token, id, core.ReleaseWindow.Milliseconds(), r.k.wch, handOff.Milliseconds())
}

func (r *scriptRig) renew(hold string, token int64, lease time.Duration) int64 {
	r.t.Helper()
	n, err := renewScript.Run(r.ctx, r.c, r.k.renew, hold, token, lease.Milliseconds()).Int64()
	if err != nil {
		r.t.Fatal(err)
	}
	return n
}

func (r *scriptRig) undo(hold string, token, count int64) int64 {
	r.t.Helper()
	return r.int(undoScript, hold, token, count, "", r.k.rch, r.k.wch, handOff.Milliseconds())
}

func (r *scriptRig) state(owner string) State {
	r.t.Helper()
	s, err := readState(r.ctx, r.lc, r.k, owner)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// hash returns the fields of the lock hash.
func (r *scriptRig) hash() map[string]string {
	r.t.Helper()
	h, err := r.c.HGetAll(r.ctx, r.k.all[0]).Result()
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// published returns the messages published since the last call, as
// "channel payload" with the channel shortened to "r" or "w".
func (r *scriptRig) published() []string {
	r.t.Helper()
	const mark = "mark"
	if err := r.c.Publish(r.ctx, r.k.wch, mark).Err(); err != nil {
		r.t.Fatal(err)
	}
	var got []string
	for {
		msg, err := r.ps.ReceiveMessage(r.ctx)
		if err != nil {
			r.t.Fatal(err)
		}
		if msg.Payload == mark {
			return got
		}
		ch := "r"
		if msg.Channel == r.k.wch {
			ch = "w"
		}
		got = append(got, ch+" "+msg.Payload)
	}
}

func (r *scriptRig) wantPublished(want ...string) {
	r.t.Helper()
	if got := r.published(); !slices.Equal(got, want) {
		r.t.Fatalf("published %q, want %q", got, want)
	}
}

func TestScripts_use_the_prelude_hold_layout(t *testing.T) {
	r := newRig(t)
	r.lock("w", 0)
	r.lock("w", 0)
	r.rlock("w", true)
	wtok, rtok := r.us(0), r.us(0)+1
	want := map[string]string{
		":kind": "rwlock", ":mode": "write",
		"w:w": "2", ":t:w:w": fmt.Sprint(wtok), ":a:w:w": "a1 a2",
		"w:r": "1", ":t:w:r": fmt.Sprint(rtok), ":a:w:r": "a3",
	}
	if h := r.hash(); !maps.Equal(h, want) {
		t.Fatalf("hash = %v, want %v", h, want)
	}
	if n := r.unlock("w", wtok, "u1"); n != 1 {
		t.Fatalf("partial unlock = %d, want 1", n)
	}
	want["w:w"], want[":u:w:w"] = "1", "u1"
	if h := r.hash(); !maps.Equal(h, want) {
		t.Fatalf("hash after a partial unlock = %v, want %v", h, want)
	}
	r.unlock("w", wtok, "u2")
	want = map[string]string{
		":kind": "rwlock", ":mode": "read", "w:r": "1", ":t:w:r": fmt.Sprint(rtok), ":a:w:r": "a3",
		":readturn": fmt.Sprint(r.t0.Add(handOff).UnixMilli()),
	}
	if h := r.hash(); !maps.Equal(h, want) {
		t.Fatalf("hash after the downgrade = %v, want %v", h, want)
	}
	leases, err := r.c.ZRangeWithScores(r.ctx, r.k.all[1], 0, -1).Result()
	if err != nil || len(leases) != 1 || leases[0].Member != "w:r" || int64(leases[0].Score) != r.t0.Add(lease).UnixMilli() {
		t.Fatalf("leases = %v, %v; want w:r until t0+30s", leases, err)
	}
	r.runlock("w", rtok, "u3")
	if r.mr.Exists(r.k.all[0]) || r.mr.Exists(r.k.all[1]) {
		t.Fatal("a free lock left its hash or lease set")
	}
}

func TestLockScript_returns(t *testing.T) {
	r := newRig(t)
	tok := r.us(0)
	if a := r.lock("w1", 0); a != (reply{1, tok}) {
		t.Fatalf("fresh write hold = %+v, want {1, %d}", a, tok)
	}
	if a := r.lock("w1", 0); a != (reply{2, tok}) {
		t.Fatalf("write re-entry = %+v, want {2, %d}", a, tok)
	}
	r.at(10 * time.Second)
	if a := r.lock("w2", time.Minute); a != (reply{0, 20_000}) {
		t.Fatalf("other writer = %+v, want {0, 20000}: the time left of the lease", a)
	}
	if s := r.state("w1"); s.WaitingWriters != 1 || s.Mode != WriteLocked || s.HoldCount != 2 {
		t.Fatalf("state = %+v; want one intent, write-locked by w1 twice", s)
	}
	if d := r.mr.TTL(r.k.all[2]); d != time.Minute {
		t.Fatalf("intent set TTL = %v, want 1m", d)
	}
	if a := r.lock("w3", 0); a.count != 0 {
		t.Fatalf("TryLock-style attempt = %+v, want refused", a)
	}
	if s := r.state(""); s.WaitingWriters != 1 {
		t.Fatalf("an attempt without intent registered one: %+v", s)
	}
	if a := r.lock("w1", 0); a != (reply{3, tok}) {
		t.Fatalf("re-entry under a waiting writer = %+v, want {3, %d}", a, tok)
	}
	if d := r.mr.TTL(r.k.all[0]); d != lease {
		t.Fatalf("lock TTL after a re-entry = %v, want the lease extended to %v", d, lease)
	}

	// A reader asking for the write lock is refused at once.
	r2 := newRig(t)
	if a := r2.rlock("x", true); a.count != 1 {
		t.Fatalf("rlock = %+v", a)
	}
	if a := r2.lock("x", time.Minute); a != (reply{-1, 0}) {
		t.Fatalf("upgrade = %+v, want {-1, 0}", a)
	}
	if s := r2.state("x"); s.WaitingWriters != 0 {
		t.Fatalf("refused upgrade registered an intent: %+v", s)
	}
	// A waiting writer's intent goes when it gets the lock.
	if a := r2.lock("y", time.Minute); a.count != 0 {
		t.Fatalf("writer under a reader = %+v, want refused", a)
	}
	r2.runlock("x", r2.us(0), "u1")
	if a := r2.lock("y", time.Minute); a != (reply{1, r2.us(0) + 1}) {
		t.Fatalf("writer after the reader left = %+v, want {1, %d}", a, r2.us(0)+1)
	}
	if s := r2.state("y"); s.WaitingWriters != 0 {
		t.Fatalf("intent left after acquiring: %+v", s)
	}

	// Under several readers the wait is until the first lease ends: that
	// reader may have crashed, and no release would tell the writer.
	r3 := newRig(t)
	r3.rlock("a", true) // until 30s
	r3.at(10 * time.Second)
	r3.rlock("b", true) // until 40s
	r3.at(15 * time.Second)
	if a := r3.lock("w", time.Minute); a != (reply{0, 15_000}) {
		t.Fatalf("writer under two readers = %+v, want {0, 15000}: until the first lease ends", a)
	}
}

func TestRLockScript_returns(t *testing.T) {
	r := newRig(t)
	tok := r.us(0)
	if a := r.rlock("a", true); a != (reply{1, tok}) {
		t.Fatalf("fresh read hold = %+v, want {1, %d}", a, tok)
	}
	if a := r.rlock("a", true); a != (reply{2, tok}) {
		t.Fatalf("read re-entry = %+v, want {2, %d}", a, tok)
	}
	if a := r.rlock("b", true); a != (reply{1, tok + 1}) {
		t.Fatalf("second reader = %+v, want {1, %d}", a, tok+1)
	}
	r.at(5 * time.Second)
	if a := r.lock("w", 20*time.Second); a.count != 0 {
		t.Fatalf("writer = %+v, want refused", a)
	}
	if a := r.rlock("c", true); a != (reply{0, 20_000}) {
		t.Fatalf("new reader under an intent = %+v, want {0, 20000}: the intent's time left", a)
	}
	if a := r.rlock("a", true); a.count != 3 {
		t.Fatalf("re-entry under an intent = %+v, want 3", a)
	}
	if a := r.rlock("c", false); a != (reply{1, r.us(5 * time.Second)}) {
		t.Fatalf("new reader without writer preference = %+v, want {1, %d}", a, r.us(5*time.Second))
	}
	r.at(26 * time.Second) // the intent lapsed (the writer died)
	if a := r.rlock("d", true); a.count != 1 {
		t.Fatalf("new reader after the intent lapsed = %+v, want a hold", a)
	}

	w := newRig(t)
	w.lock("w", 0)
	w.at(time.Second)
	if a := w.rlock("x", false); a != (reply{0, 29_000}) {
		t.Fatalf("reader under a writer = %+v, want {0, 29000}", a)
	}
	w.lock("v", time.Minute) // an intent does not stop the writer's own read
	if a := w.rlock("w", true); a != (reply{1, w.us(time.Second)}) {
		t.Fatalf("the writer's read (downgrade) = %+v, want {1, %d}", a, w.us(time.Second))
	}
	if s := w.state("w"); s.Mode != WriteLocked || s.Readers != 1 || s.HoldCount != 1 || s.RHoldCount != 1 {
		t.Fatalf("state = %+v; want write-locked with the writer's own read hold", s)
	}
}

func TestUnlockScript_returns(t *testing.T) {
	r := newRig(t)
	r.lock("w", 0)
	r.lock("w", 0)
	r.rlock("w", true)       // downgrade: token r.us(0) + 1
	r.lock("v", time.Minute) // a waiting writer
	r.published()            // nothing yet
	if n := r.unlock("w", r.us(0), "u1"); n != 1 {
		t.Fatalf("partial unlock = %d, want 1", n)
	}
	if n := r.unlock("w", r.us(0), "u1"); n != 1 {
		t.Fatalf("retried partial unlock = %d, want 1 again", n)
	}
	r.wantPublished()
	if n := r.unlock("w", 99, "u2"); n != -1 {
		t.Fatalf("unlock with a wrong token = %d, want -1", n)
	}
	if n := r.unlock("w", r.us(0), "u2"); n != 0 {
		t.Fatalf("last unlock = %d, want 0", n)
	}
	r.wantPublished("r *", "w 1")
	if s := r.state("w"); s.Mode != ReadLocked || s.RHoldCount != 1 || s.HoldCount != 0 || s.WaitingWriters != 0 {
		t.Fatalf("state after downgrade = %+v; want read-locked by w, intents cleared", s)
	}
	if n := r.unlock("w", r.us(0), "u2"); n != 0 {
		t.Fatalf("retried last unlock = %d, want 0", n)
	}
	if n := r.unlock("w", r.us(0), "u3"); n != 0 {
		t.Fatalf("unlock of a released token = %d, want 0 (it is remembered)", n)
	}
	r.wantPublished()

	e := newRig(t)
	e.lock("w", 0)
	e.at(31 * time.Second) // the lease ended
	if n := e.unlock("w", e.us(0), "u1"); n != -1 {
		t.Fatalf("unlock after the lease = %d, want -1", n)
	}
	e.wantPublished()
	if e.mr.Exists(e.k.all[0]) || e.mr.Exists(e.k.all[1]) {
		t.Fatal("an expired hold was left in Redis")
	}
}

func TestRUnlockScript_returns(t *testing.T) {
	r := newRig(t)
	r.rlock("a", true)
	r.rlock("a", true)
	r.rlock("b", true)
	if n := r.runlock("a", r.us(0), "u1"); n != 1 {
		t.Fatalf("partial runlock = %d, want 1", n)
	}
	if n := r.runlock("a", r.us(0), "u1"); n != 1 {
		t.Fatalf("retried partial runlock = %d, want 1", n)
	}
	if n := r.runlock("a", r.us(0)+1, "u2"); n != -1 {
		t.Fatalf("runlock with b's token = %d, want -1", n)
	}
	if n := r.runlock("a", r.us(0), "u2"); n != 0 {
		t.Fatalf("a's last runlock = %d, want 0", n)
	}
	r.wantPublished() // b still reads: nobody is woken
	if n := r.runlock("b", r.us(0)+1, "u3"); n != 0 {
		t.Fatalf("b's runlock = %d, want 0", n)
	}
	r.wantPublished("w 1") // the last reader left
	if n := r.runlock("b", r.us(0)+1, "u3"); n != 0 {
		t.Fatalf("retried runlock = %d, want 0", n)
	}
	r.wantPublished()

	// The writer's own read hold ending wakes nobody: it still writes.
	d := newRig(t)
	d.lock("w", 0)
	d.rlock("w", true)
	if n := d.runlock("w", d.us(0)+1, "u1"); n != 0 {
		t.Fatalf("runlock = %d, want 0", n)
	}
	d.wantPublished()
	if s := d.state("w"); s.Mode != WriteLocked || s.Readers != 0 {
		t.Fatalf("state = %+v; want write-locked, no reader", s)
	}

	// A reader whose lease ended (the time is past its deadline, as a
	// key's expiry) has nothing to release; in the ms of its deadline it
	// still holds the lock.
	e := newRig(t)
	e.rlock("a", true)
	e.at(30 * time.Second)
	if s := e.state("a"); s.Mode != ReadLocked || s.Readers != 1 {
		t.Fatalf("state at the lease's deadline = %+v; want read-locked by the reader", s)
	}
	e.at(30*time.Second + time.Millisecond)
	if n := e.runlock("a", e.us(0), "u1"); n != -1 {
		t.Fatalf("runlock after the lease = %d, want -1", n)
	}
}

func TestRUnlockScript_hands_a_claimed_lock_off_to_writers(t *testing.T) {
	// Freed with no writer waiting: no hand-off, a reader gets in.
	n := newRig(t)
	n.rlock("a", false)
	n.lock("w", 0) // TryLock: refused, claims nothing
	n.runlock("a", n.us(0), "u1")
	n.wantPublished("w 1")
	if a := n.rlock("b", false); a.count != 1 {
		t.Fatalf("reader after an unclaimed release = %+v, want a hold", a)
	}

	r := newRig(t)
	r.rlock("a", false)
	r.rlock("b", false)
	if a := r.wait("w", 0); a.count != 0 {
		t.Fatalf("writer under readers = %+v, want refused", a)
	}
	if h := r.hash(); h[":claim"] != "1" {
		t.Fatalf("hash = %v, want the writer's claim", h)
	}
	r.runlock("a", r.us(0), "u1") // b still reads: no hand-off
	r.wantPublished()
	if a := r.rlock("c", false); a.count != 1 {
		t.Fatalf("reader joining readers under a claim = %+v, want a hold", a)
	}
	r.runlock("c", r.us(0)+2, "u2")
	r.runlock("b", r.us(0)+1, "u3") // the last reader: the lock is handed off
	r.wantPublished("w 1")
	for _, prefer := range []bool{false, true} {
		if a := r.rlock("d", prefer); a != (reply{0, handOff.Milliseconds()}) {
			t.Fatalf("reader (preference %v) during the hand-off = %+v, want {0, %d}", prefer, a, handOff.Milliseconds())
		}
	}
	if s := r.state("w"); s != (State{}) {
		t.Fatalf("state during the hand-off = %+v, want a free lock and no waiting writer", s)
	}
	if a := r.wait("w", 0); a.count != 1 {
		t.Fatalf("writer during the hand-off = %+v, want the lock", a)
	}
	if r.mr.Exists(r.k.all[2]) {
		t.Fatal("the hand-off outlived the writer taking the lock")
	}

	// A hand-off nobody takes lapses; one claim asks for one hand-off.
	e := newRig(t)
	e.rlock("a", false)
	e.wait("w", 0)
	e.runlock("a", e.us(0), "u1")
	e.at(handOff)
	if a := e.rlock("b", false); a.count != 1 {
		t.Fatalf("reader after the hand-off lapsed = %+v, want a hold", a)
	}
	e.runlock("b", e.us(handOff), "u2")
	if a := e.rlock("c", false); a.count != 1 {
		t.Fatalf("reader after a release with no new claim = %+v, want a hold", a)
	}

	// A dropped read hold that frees a claimed lock hands it off too.
	u := newRig(t)
	u.rlock("a", false)
	u.wait("w", 0)
	u.published()
	if n := u.undo("a:r", 0, 0); n != 1 {
		t.Fatalf("undo = %d, want 1", n)
	}
	u.wantPublished("w 1")
	if a := u.rlock("b", false); a.count != 0 {
		t.Fatalf("reader after the undo = %+v, want refused by the hand-off", a)
	}

	// The last waiting writer giving up drops the hand-off and wakes the
	// readers.
	g := newRig(t)
	g.rlock("a", true)
	g.wait("w", time.Minute)
	g.runlock("a", g.us(0), "u1")
	g.published()
	if n := g.int(withdrawScript, "w:w", g.k.rch); n != 1 {
		t.Fatalf("withdraw = %d, want 1", n)
	}
	g.wantPublished("r *")
	if a := g.rlock("b", true); a.count != 1 {
		t.Fatalf("reader after the writer gave up = %+v, want a hold", a)
	}
}

func TestRenewScript_returns(t *testing.T) {
	r := newRig(t)
	r.rlock("a", true) // until 30s
	r.rlock("b", true) // until 30s
	r.at(20 * time.Second)
	if n := r.renew("a:r", r.us(0), 30*time.Second); n != 1 {
		t.Fatalf("renew = %d, want 1", n)
	}
	if s := r.state("a"); s.TTL != 30*time.Second || r.mr.TTL(r.k.all[0]) != 30*time.Second {
		t.Fatalf("TTL = %v (key %v), want 30s", s.TTL, r.mr.TTL(r.k.all[0]))
	}
	if n := r.renew("a:r", r.us(0)+1, 30*time.Second); n != 0 {
		t.Fatalf("renew with b's token = %d, want 0", n)
	}
	if n := r.renew("a:w", r.us(0), 30*time.Second); n != 0 {
		t.Fatalf("renew of a write hold a does not have = %d, want 0", n)
	}
	r.at(31 * time.Second) // b's lease ended; a's did not
	if n := r.renew("b:r", r.us(0)+1, 30*time.Second); n != 0 {
		t.Fatalf("renew after the lease ended = %d, want 0", n)
	}
	if s := r.state("a"); s.Readers != 1 || s.TTL != 19*time.Second {
		t.Fatalf("state = %+v; want a alone, TTL 19s", s)
	}

	// In the ms of its deadline a lease is still live, as a key is until
	// the time is past its expiry: it can be renewed.
	e := newRig(t)
	e.rlock("a", true) // until 30s
	e.at(30 * time.Second)
	if n := e.renew("a:r", e.us(0), 30*time.Second); n != 1 {
		t.Fatalf("renew in the ms of the deadline = %d, want 1", n)
	}
}

func TestWithdrawScript_returns(t *testing.T) {
	r := newRig(t)
	r.rlock("a", true)
	r.lock("w1", time.Minute)
	r.lock("w2", time.Minute)
	r.published()
	ok, err := withdraw(r.ctx, r.lc, r.k, "w1:w")
	if err != nil || !ok {
		t.Fatalf("withdraw = %v, %v; want true", ok, err)
	}
	r.wantPublished() // w2 still holds readers back
	if ok, _ := withdraw(r.ctx, r.lc, r.k, "w1:w"); ok {
		t.Fatal("second withdraw = true, want false")
	}
	if ok, _ := withdraw(r.ctx, r.lc, r.k, "w2:w"); !ok {
		t.Fatal("withdraw of w2 = false")
	}
	r.wantPublished("r *")
}

func TestForceUnlockScript_returns(t *testing.T) {
	r := newRig(t)
	r.rlock("a", true)
	r.lock("w", time.Minute)
	r.published()
	if ok, err := forceUnlock(r.ctx, r.lc, r.k); err != nil || !ok {
		t.Fatalf("force unlock = %v, %v; want true", ok, err)
	}
	r.wantPublished("r *", "w *")
	if s := r.state("a"); s.Mode != Unlocked || s.WaitingWriters != 1 {
		t.Fatalf("state = %+v; want unlocked, the waiting writer's intent kept", s)
	}
	if ok, _ := forceUnlock(r.ctx, r.lc, r.k); ok {
		t.Fatal("force unlock of a free lock = true")
	}
	r.wantPublished()
}

func TestStateScript_returns(t *testing.T) {
	r := newRig(t)
	if s := r.state("a"); s != (State{}) {
		t.Fatalf("free lock state = %+v, want zero", s)
	}
	r.rlock("a", true)
	r.rlock("a", true)
	r.at(10 * time.Second)
	r.rlock("b", true)
	r.lock("w", time.Minute)
	want := State{Mode: ReadLocked, Readers: 2, WaitingWriters: 1, RHoldCount: 2, TTL: 30 * time.Second}
	if s := r.state("a"); s != want {
		t.Fatalf("state = %+v, want %+v", s, want)
	}
	r.at(35 * time.Second) // a's lease ended, unpurged: not counted
	want = State{Mode: ReadLocked, Readers: 1, WaitingWriters: 1, TTL: 5 * time.Second}
	if s := r.state("a"); s != want {
		t.Fatalf("state = %+v, want %+v", s, want)
	}
	if Mode(7).String() != "Mode(7)" || WriteLocked.String() != "write" {
		t.Fatalf("Mode strings: %q %q", Mode(7).String(), WriteLocked.String())
	}
}

func TestUndoScript_returns(t *testing.T) {
	// An unknown write hold is dropped; readers and one writer are woken,
	// and waiting writers keep their intents.
	r := newRig(t)
	r.lock("w", 0)
	r.lock("v", time.Minute)
	r.published()
	if n := r.undo("w:w", 0, 0); n != 1 {
		t.Fatalf("undo of an unknown write hold = %d, want 1", n)
	}
	r.wantPublished("r *", "w 1")
	if s := r.state("w"); s.Mode != Unlocked || s.WaitingWriters != 1 {
		t.Fatalf("state = %+v; want unlocked, the waiting writer's intent kept", s)
	}
	if n := r.undo("w:w", 0, 0); n != 0 {
		t.Fatalf("undo with nothing to undo = %d, want 0", n)
	}
	r.wantPublished()

	// A re-entry is cut back to the known count; the known count is kept.
	// (Without writer preference: v's intent would keep a out.)
	for range 3 {
		r.rlock("a", false)
	}
	if n := r.undo("a:r", r.us(0)+1, 2); n != 1 {
		t.Fatalf("undo of a re-entry = %d, want 1", n)
	}
	if s := r.state("a"); s.RHoldCount != 2 {
		t.Fatalf("state = %+v; want RHoldCount 2", s)
	}
	if n := r.undo("a:r", r.us(0)+1, 2); n != 0 {
		t.Fatalf("undo at the known count = %d, want 0", n)
	}
	r.wantPublished()

	// An unknown read hold: dropped; the last one wakes one writer.
	r.rlock("b", false)
	if n := r.undo("b:r", 0, 0); n != 1 {
		t.Fatalf("undo of an unknown read hold = %d, want 1", n)
	}
	r.wantPublished() // a still reads
	if n := r.undo("a:r", 9, 2); n != 1 {
		t.Fatalf("undo of a hold newer than the known one = %d, want 1", n)
	}
	r.wantPublished("w 1")
	if s := r.state("a"); s.Mode != Unlocked {
		t.Fatalf("state = %+v; want unlocked", s)
	}

	// The writer's own unknown read hold: dropped; it still writes, so
	// nobody is woken.
	d := newRig(t)
	d.lock("w", 0)
	d.rlock("w", true)
	if n := d.undo("w:r", 0, 0); n != 1 {
		t.Fatalf("undo of the writer's read hold = %d, want 1", n)
	}
	d.wantPublished()
	if s := d.state("w"); s.Mode != WriteLocked || s.Readers != 0 || s.HoldCount != 1 {
		t.Fatalf("state = %+v; want write-locked by w, no reader", s)
	}
}

// TestScripts_leave_another_kinds_hash_alone: a name held by a lock of
// another kind is never taken, rewritten or deleted; every script that
// would change the hash replies WRONGKIND.
func TestScripts_leave_another_kinds_hash_alone(t *testing.T) {
	for _, kind := range []string{config.Reentrant, config.Spin, config.Fair} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t)
			// A hold of the other kind, owner "o", as its scripts write it;
			// an owner id that looks like an rwlock hold makes no
			// difference.
			if err := r.c.HSet(r.ctx, r.k.all[0], ":kind", kind, "o:w", 1, ":t:o:w", 7).Err(); err != nil {
				t.Fatal(err)
			}
			if err := r.c.PExpire(r.ctx, r.k.all[0], time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			r.at(2 * time.Minute) // the server's clock is past every lease the scripts could see
			before := r.hash()
			run := map[string]func() error{
				"lock": func() error {
					return writeScripts.Acquire.Run(r.ctx, r.c, r.k.all, "o:w", 1000, "a1", "o:r", 1000).Err()
				},
				"rlock": func() error { return readScripts.Acquire.Run(r.ctx, r.c, r.k.all, "o:r", 1000, "a1", "o:w", "1").Err() },
				"unlock": func() error {
					return writeScripts.Release.Run(r.ctx, r.c, r.k.all, "o:w", 7, "u", 1000, r.k.rch, r.k.wch).Err()
				},
				"runlock":  func() error { return readScripts.Release.Run(r.ctx, r.c, r.k.all, "o:r", 7, "u", 1000, r.k.wch).Err() },
				"renew":    func() error { return renewScript.Run(r.ctx, r.c, r.k.renew, "o:w", 7, 1000).Err() },
				"undo":     func() error { return undoScript.Run(r.ctx, r.c, r.k.all, "o:w", 0, 0, "", r.k.rch, r.k.wch).Err() },
				"force":    func() error { _, err := forceUnlock(r.ctx, r.lc, r.k); return err },
				"state":    func() error { _, err := readState(r.ctx, r.lc, r.k, "o"); return err },
				"withdraw": func() error { _, err := withdraw(r.ctx, r.lc, r.k, "o:w"); return err },
			}
			for name, f := range run {
				err := f()
				if name == "withdraw" {
					// It touches the intent set only.
					if err != nil {
						t.Fatalf("withdraw: %v", err)
					}
				} else if !redis.HasErrorPrefix(err, "WRONGKIND") {
					t.Fatalf("%s = %v, want a WRONGKIND error", name, err)
				}
				if h := r.hash(); !maps.Equal(h, before) {
					t.Fatalf("%s changed the hash: %v -> %v", name, before, h)
				}
				if d := r.mr.TTL(r.k.all[0]); d != time.Minute {
					t.Fatalf("%s changed the hash's TTL to %v", name, d)
				}
				for _, k := range r.k.all[1:] {
					if r.mr.Exists(k) {
						t.Fatalf("%s wrote %s", name, k)
					}
				}
			}
			r.wantPublished()
		})
	}
}
