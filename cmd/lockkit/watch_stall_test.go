package main

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestWatch_outlives_a_stalled_server checks that watch runs until
// interrupted, as doc.go says, also through a stall of its server longer
// than --timeout: once the server answers again watch prints what
// happens to the lock, then ends on SIGINT with status 0.
func TestWatch_outlives_a_stalled_server(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	w := f.start(t, "-o", "json", "watch", "--timeout", "200ms", "--prefix", f.prefix, f.name)
	if ev := nextEvent(t, w); ev.Event != "state" {
		t.Fatalf("watch began with %+v, want the state", ev)
	}
	s.Stall(t, 2*time.Second)
	redistest.Eventually(t, 10*time.Second, "the stall to end", func() bool {
		return f.rc.Ping(f.ctx).Err() == nil
	})
	m := reentrant.New(f.process(t), f.name, lockkit.WithOwner("after-stall"))
	redistest.MustLock(t, m)
	if ev := awaitEvents(t, w, "acquire")["acquire"]; ev.Owner != "after-stall" || ev.Token != m.Token() {
		t.Errorf("acquire after the stall: %+v, want after-stall's hold, token %d", ev, m.Token())
	}
	redistest.MustUnlock(t, m)
	w.interrupt(t)
}
