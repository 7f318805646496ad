package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestTimeout_bounds_each_command_against_a_stalled_server checks that
// --timeout bounds show, ls and unlock, as doc.go says, also when the
// server stopped answering: with --timeout 200ms each ends with status 1
// well before go-redis's default read timeout (5 s) would have ended it.
func TestTimeout_bounds_each_command_against_a_stalled_server(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	redistest.MustLock(t, reentrant.New(f.lc, f.name))
	s.Stall(t, time.Minute)
	for _, args := range [][]string{
		{"show", f.name},
		{"ls"},
		{"unlock", "--force", "--yes", f.name},
	} {
		begin := time.Now()
		r := f.run(t, append([]string{"--timeout", "200ms", "--prefix", f.prefix}, args...)...)
		took := time.Since(begin)
		if r.code != exitFail || !strings.Contains(r.stderr, "lockkit "+args[0]+":") {
			t.Errorf("lockkit %q against a stalled server: status %d, stderr %q; want %d and the error", args, r.code, r.stderr, exitFail)
		}
		if took > 2*time.Second {
			t.Errorf("lockkit %q with --timeout 200ms against a stalled server took %v", args, took)
		}
	}
}
