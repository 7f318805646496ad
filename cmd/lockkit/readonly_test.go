package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestShow_ls_and_watch_need_no_write_permission checks the README's
// "only unlock --force --yes writes": an ACL user allowed only read
// commands (and TIME, which snapshot.lua reads), pub/sub and read-only
// scripts can show, list and watch a held lock, and its unlock --force
// --yes is refused by the server (status 1), leaving the lock held.
func TestShow_ls_and_watch_need_no_write_permission(t *testing.T) {
	s := redistest.StartServer(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	const user, password = "reader", "s3cret"
	if err := s.Client(t).Do(ctx, "ACL", "SETUSER", user, "on", ">"+password, "~*", "&*",
		"-@all", "+@read", "+@pubsub", "+@connection", "+eval_ro", "+evalsha_ro", "+time").Err(); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, s.Client(t))
	m := holdReentrant(t, f.lc)
	ro := cli{conn: []string{"-u", "redis://" + user + ":" + password + "@" + s.Addr()}}

	ro.wantShowsHeld(t, f.prefix, m)
	ro.wantListsAlone(t, f.prefix, m)
	w := ro.start(t, "-o", "json", "watch", "--prefix", f.prefix, m.Name())
	if ev := nextEvent(t, w); ev.Event != "state" || ev.Lock == nil || ev.Lock.Mode != "exclusive" {
		t.Errorf("watch began with %+v, want the held lock's state", ev)
	}
	w.interrupt(t)

	if r := ro.run(t, "unlock", "--force", "--yes", "--prefix", f.prefix, m.Name()); r.code != exitFail || !strings.Contains(r.stderr, "NOPERM") {
		t.Errorf("unlock --force --yes as a read-only user: status %d, stderr %q; want %d and NOPERM", r.code, r.stderr, exitFail)
	}
	f.wantShowsHeld(t, f.prefix, m)
}
