package lua_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// procsLock is one hash lock's keys and channel, with the helpers that
// run its scripts on c.
type procsLock struct {
	t    *testing.T
	c    redis.UniversalClient
	keys []string
	ch   string
	n    int // attempt ids
}

func newProcsLock(t *testing.T, c redis.UniversalClient) *procsLock {
	base := "lockkit:{" + redistest.Unique(t) + "}"
	return &procsLock{t: t, c: c, keys: []string{base, base + ":fence", base + ":released", base + ":procs", base + ":turn"}, ch: base + ":ch"}
}

// acquire runs acquire.lua for owner, as process proc with waiters, and
// returns its reply.
func (l *procsLock) acquire(owner, proc, waiters string) []int64 {
	l.t.Helper()
	l.n++
	return l.acquireAs(owner, fmt.Sprint(owner, l.n), proc, waiters)
}

// acquireAs runs acquire.lua for owner with attempt id, as process proc
// with waiters, and returns its reply.
func (l *procsLock) acquireAs(owner, id, proc, waiters string) []int64 {
	l.t.Helper()
	got, err := lua.Mutex.Acquire.Run(context.Background(), l.c, l.keys, owner, 30000, id, "reentrant", proc, waiters).Int64Slice()
	if err != nil {
		l.t.Fatal(err)
	}
	return got
}

// undo runs undo.lua for the acquire of owner with attempt id, as an
// owner id several values share does, and returns its reply: 1 when it
// undid it.
func (l *procsLock) undo(owner, id string) int64 {
	l.t.Helper()
	n, err := lua.Mutex.Undo.Run(context.Background(), l.c, l.keys, owner, id, -1, id, l.ch, "reentrant").Int64()
	if err != nil {
		l.t.Fatalf("undo: %v", err)
	}
	return n
}

// release runs release.lua for owner's hold with token and checks that
// it ended the hold.
func (l *procsLock) release(owner string, token int64) {
	l.t.Helper()
	if n := l.releaseAs(owner, token, "u-"+owner); n != 0 {
		l.t.Fatalf("release = %d; want 0", n)
	}
}

// releaseAs runs release.lua for owner's hold with token, as the unlock
// with id unlockID, and returns the hold count left.
func (l *procsLock) releaseAs(owner string, token int64, unlockID string) int64 {
	l.t.Helper()
	n, err := lua.Mutex.Release.Run(context.Background(), l.c, l.keys, owner, token, unlockID, 10000, l.ch).Int64()
	if err != nil {
		l.t.Fatalf("release: %v", err)
	}
	return n
}

// pass runs pass.lua and checks its reply: 1 when it woke a process.
func (l *procsLock) pass(want int64) {
	l.t.Helper()
	if n, err := lua.Mutex.Pass.Run(context.Background(), l.c, l.keys, l.ch).Int64(); err != nil || n != want {
		l.t.Fatalf("pass = %d, %v; want %d", n, err, want)
	}
}

// force runs force.lua and checks that it released the lock.
func (l *procsLock) force() {
	l.t.Helper()
	if n, err := lua.Mutex.Force.Run(context.Background(), l.c, l.keys, core.ForceArgs(l.ch, "reentrant")...).Int64(); err != nil || n != 1 {
		l.t.Fatalf("force = %d, %v; want 1", n, err)
	}
}

// procs returns the registered processes, first to be woken first.
func (l *procsLock) procs() []string {
	l.t.Helper()
	p, err := l.c.ZRange(context.Background(), l.keys[3], 0, -1).Result()
	if err != nil {
		l.t.Fatal(err)
	}
	return p
}

func (l *procsLock) wantProcs(want ...string) {
	l.t.Helper()
	if got := l.procs(); !slices.Equal(got, want) {
		l.t.Fatalf("registered %q, want %q", got, want)
	}
	if len(want) > 0 {
		if ttl := l.c.PTTL(context.Background(), l.keys[3]).Val(); ttl <= 0 {
			l.t.Fatalf("the registrations have TTL %v, want one", ttl)
		}
	}
}

// TestMutex_undo_finds_an_acquire_among_the_latest_of_a_shared_owner: an
// undo by attempt id (an owner id several values share) undoes that
// acquire whatever acquires of the owner came after it, once, as long as
// the hold lists it among its latest 16; a late copy of the undone
// acquire counts nothing.
func TestMutex_undo_finds_an_acquire_among_the_latest_of_a_shared_owner(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		var token int64
		for i := 0; i <= 20; i++ {
			got := l.acquireAs("o", fmt.Sprint("a", i), "", "")
			if got[0] != int64(i+1) {
				t.Fatalf("acquire %d = %v, want count %d", i, got, i+1)
			}
			token = got[1]
		}
		// a5 to a20 are listed.
		for _, u := range []struct {
			id   string
			want int64
		}{{"a4", 0}, {"a5", 1}, {"a12", 1}, {"a12", 0}, {"a20", 1}} {
			if got := l.undo("o", u.id); got != u.want {
				t.Fatalf("undo of %s = %d, want %d", u.id, got, u.want)
			}
		}
		for _, id := range []string{"a12", "a19"} {
			if got := l.acquireAs("o", id, "", ""); got[0] != 18 || got[1] != token {
				t.Fatalf("acquire %s sent again = %v, want {18, %d}: counted once", id, got, token)
			}
		}
		if n, err := c.HGet(t.Context(), l.keys[0], "o").Int64(); err != nil || n != 18 {
			t.Fatalf("hold count = %d, %v; want 18", n, err)
		}
	})
}
