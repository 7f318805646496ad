package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestTimeout_by_default_ends_a_command_against_a_stalled_server_after_10s:
// without --timeout, show against a server that stopped answering ends
// with status 1 once the default 10 s have passed, not before and not
// much later.
func TestTimeout_by_default_ends_a_command_against_a_stalled_server_after_10s(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	redistest.MustLock(t, reentrant.New(f.lc, f.name))
	s.Stall(t, time.Minute)
	begin := time.Now()
	r := f.run(t, "--prefix", f.prefix, "show", f.name)
	took := time.Since(begin)
	t.Logf("show against a stalled server ended after %v: status %d, stderr %q", took, r.code, r.stderr)
	if r.code != exitFail || !strings.Contains(r.stderr, "lockkit show:") {
		t.Errorf("show against a stalled server: status %d, stderr %q; want %d and the error", r.code, r.stderr, exitFail)
	}
	const d = 10 * time.Second
	if took < d || took > d+3*time.Second {
		t.Errorf("show without --timeout against a stalled server took %v, want the default %v", took, d)
	}
}
