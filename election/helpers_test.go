package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// nextLeader returns the next value on ch, and
// fails the test if ch closes or nothing comes in time.
func nextLeader(t *testing.T, ch <-chan election.Leader, what string) election.Leader {
	t.Helper()
	timer := time.NewTimer(redistest.Hang)
	defer timer.Stop()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatalf("observer closed waiting for %s", what)
		}
		return l
	case <-timer.C:
		t.Fatalf("timed out after %v waiting for %s", redistest.Hang, what)
		panic("unreachable")
	}
}

// observeUntil reads ch until a leader for which ok reports true, and
// returns it.
func observeUntil(t *testing.T, ch <-chan election.Leader, what string, ok func(election.Leader) bool) election.Leader {
	t.Helper()
	for {
		if l := nextLeader(t, ch, what); ok(l) {
			return l
		}
	}
}

// takesOver waits for the leadership that won delivers, the successor of
// prev: it fails the test unless the successor's term is larger than
// prev's, waits until obs reports it and returns it.
func takesOver(t *testing.T, won <-chan *election.Leadership, prev *election.Leadership, obs <-chan election.Leader, what string) *election.Leadership {
	t.Helper()
	b := redistest.Receive(t, won, redistest.Hang, what)
	if b == nil {
		t.FailNow()
	}
	if b.Leader().Term <= prev.Leader().Term {
		t.Fatalf("term %d after %d", b.Leader().Term, prev.Leader().Term)
	}
	observeUntil(t, obs, what, func(l election.Leader) bool { return l == b.Leader() })
	return b
}

// mustCampaign returns e.Campaign(ctx, value)'s leadership, and fails the
// test on an error.
func mustCampaign(ctx context.Context, t *testing.T, e *election.Election, value string) *election.Leadership {
	t.Helper()
	l, err := e.Campaign(ctx, value)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mustObserve returns e.Observe(ctx)'s channel, and fails the test on an
// error.
func mustObserve(ctx context.Context, t *testing.T, e *election.Election) <-chan election.Leader {
	t.Helper()
	obs, err := e.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// campaignAsync starts e.Campaign(ctx, value) and returns the channel its
// leadership arrives on (nil after an error, which fails the test).
func campaignAsync(ctx context.Context, t *testing.T, e *election.Election, value string) <-chan *election.Leadership {
	won := make(chan *election.Leadership, 1)
	go func() {
		l, err := e.Campaign(ctx, value)
		if err != nil {
			t.Errorf("Campaign(%s): %v", value, err)
		}
		won <- l
	}()
	return won
}

// silentServer starts a server and returns it, a client of it and a
// Silence that, once on, holds up the commands of that client that match
// picks (the caller turns it off).
func silentServer(t *testing.T, match func(redis.Cmder) bool) (*redistest.Server, *redis.Client, *redistest.Silence) {
	t.Helper()
	s := redistest.StartServer(t)
	rc := s.Client(t)
	silent := &redistest.Silence{Match: match, Max: 2 * redistest.Hang}
	rc.AddHook(silent)
	return s, rc, silent
}

// droppingServer starts a server and returns it, a client of it and a
// DropReply that, once armed, loses the reply of the next script that
// client runs.
func droppingServer(t *testing.T) (*redistest.Server, *redis.Client, *redistest.DropReply) {
	t.Helper()
	s := redistest.StartServer(t)
	rc := s.Client(t)
	drop := &redistest.DropReply{Match: redistest.IsScript}
	rc.AddHook(drop)
	return s, rc, drop
}

// campaignHeardOf runs e.Campaign(ctx, value) with the reply of its
// proclamation held up by late until obs reports value proclaimed, and
// returns Campaign's error: the observers heard of a leader whose Campaign
// may still fail (the caller armed what loses that reply).
func campaignHeardOf(ctx context.Context, t *testing.T, e *election.Election, obs <-chan election.Leader, late *redistest.Silence, value string) error {
	t.Helper()
	late.On()
	done := make(chan error, 1)
	go func() {
		_, err := e.Campaign(ctx, value)
		done <- err
	}()
	observeUntil(t, obs, value+" to be proclaimed", func(l election.Leader) bool { return l.Value == value })
	late.Off()
	return redistest.Receive(t, done, redistest.Hang, "Campaign to fail")
}

// loadScripts campaigns and resigns once through c, on a name of its own
// beside name, so that the server has the election's scripts: a NOSCRIPT
// reply to a script that a test holds up or whose reply it drops would be
// held up or dropped too.
func loadScripts(ctx context.Context, t *testing.T, c *lockkit.Client, name string) {
	t.Helper()
	warm := mustCampaign(ctx, t, election.New(c, name+"-warm"), "warm")
	if err := warm.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

// afterProclamation returns a command matcher that selects the scripts
// other than a proclamation, once proclaim has acted: the give-back that
// follows the proclamation whose reply proclaim loses.
func afterProclamation(proclaim *redistest.DropReply) func(redis.Cmder) bool {
	return func(cmd redis.Cmder) bool {
		return redistest.IsScript(cmd) && !proclaims(cmd) && !proclaim.Armed()
	}
}

// contest campaigns for "a" through lc with opt, observes the election
// through oc until the observer reports a leading, and starts a candidate
// "b", with opts, on a Client of its own of s, that waits for the
// leadership. It returns a's leadership, the observer's channel and the
// channel b's leadership arrives on.
func contest(ctx context.Context, t *testing.T, s *redistest.Server, lc, oc *lockkit.Client, name string, opt lockkit.Option, opts ...lockkit.Option) (*election.Leadership, <-chan election.Leader, <-chan *election.Leadership) {
	t.Helper()
	a := mustCampaign(ctx, t, election.New(lc, name, opt), "a")
	obs := mustObserve(ctx, t, election.New(oc, name))
	observeUntil(t, obs, "a to lead", func(l election.Leader) bool { return l == a.Leader() })
	return a, obs, waitingCandidate(ctx, t, redistest.Lockkit(t, s.Client(t)), name, "b", opts...)
}

// resignsClean resigns l, failing the test on an error, and checks that
// nothing of the election name is left in Redis, as seen through rc.
func resignsClean(ctx context.Context, t *testing.T, l *election.Leadership, rc redis.UniversalClient, name string) {
	t.Helper()
	if err := l.Resign(ctx); err != nil {
		t.Fatalf("Resign of %s = %v; want nil", l.Leader().Value, err)
	}
	redistest.AssertClean(t, rc, name)
}

// lateProclamations returns a Silence that, while on, holds up the reply
// of each proclamation once it took effect, so that the observers hear of
// a leader whose Campaign has not returned yet (the caller turns it off).
func lateProclamations() *redistest.Silence {
	return &redistest.Silence{Match: proclaims, Late: true, Max: 2 * redistest.Hang}
}

// droppedProclamation starts a server and returns it and a client of it
// with the hooks first added, in order, and then proclaim: a DropReply
// that, once armed, loses the reply of the next proclamation the client
// sends. A hook the caller adds after it, matching
// afterProclamation(proclaim), hinders the give-back that follows.
func droppedProclamation(t *testing.T, first ...redis.Hook) (*redistest.Server, *redis.Client, *redistest.DropReply) {
	t.Helper()
	s := redistest.StartServer(t)
	rc := s.Client(t)
	for _, h := range first {
		rc.AddHook(h)
	}
	proclaim := &redistest.DropReply{Match: proclaims}
	rc.AddHook(proclaim)
	return s, rc, proclaim
}

// vacantObserver observes the election name through a Client of its own
// of s, fails the test unless its first report is that nobody leads, and
// returns the observer's channel past that report.
func vacantObserver(ctx context.Context, t *testing.T, s *redistest.Server, name string) <-chan election.Leader {
	t.Helper()
	obs := mustObserve(ctx, t, election.New(redistest.Lockkit(t, s.Client(t)), name))
	if l := nextLeader(t, obs, "the first report"); l != (election.Leader{}) {
		t.Fatalf("first report = %+v, want nobody", l)
	}
	return obs
}
