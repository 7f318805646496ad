package election_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// tellsObservers reports whether cmd runs a script that tells an
// election's observers that nobody leads (its arguments name the
// observers' channel and the wake-all message "*").
func tellsObservers(cmd redis.Cmder) bool {
	if n := cmd.Name(); n != "evalsha" && n != "eval" {
		return false
	}
	var channel, all bool
	for _, a := range cmd.Args() {
		s, _ := a.(string)
		channel = channel || strings.HasSuffix(s, ":observe")
		all = all || s == "*"
	}
	return channel && all
}

// TestResign_with_an_ended_ctx_waits_CleanupGrace_at_most_to_tell_the_observers:
// a Resign called with a ctx that had ended releases (on a detached
// context), but the word to the observers that follows, which a silent
// server holds up, is waited for core.CleanupGrace at most and goes on in
// the background: Resign returns nil long before core.CleanupTimeout, and
// the observers are told once the server answers.
func TestResign_with_an_ended_ctx_waits_CleanupGrace_at_most_to_tell_the_observers(t *testing.T) {
	s, rc, silent := silentServer(t, tellsObservers)
	defer silent.Off()
	c := redistest.Lockkit(t, rc)
	name := redistest.Unique(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	l := mustCampaign(ctx, t, election.New(c, name), "a")
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
	observeUntil(t, obs, "the leader", func(got election.Leader) bool { return got == l.Leader() })

	silent.On()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := l.Resign(ended)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("Resign = %v", err)
	}
	// Loose, against a loaded machine: waiting for the word to the
	// observers on its own detached context took CleanupTimeout.
	if took >= core.CleanupTimeout {
		t.Errorf("Resign whose word to the observers got no reply took %v; want less than %v", took, core.CleanupTimeout)
	}
	if silent.Held() == 0 {
		t.Error("the word to the observers was not held up")
	}
	silent.Off()
	observeUntil(t, obs, "nobody to lead", func(got election.Leader) bool { return got == election.Leader{} })
}
