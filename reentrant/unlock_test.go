package reentrant_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_with_an_ended_ctx_against_a_silent_server_releases_in_the_background:
// an Unlock whose ctx has ended already still releases, on a detached
// context of its own bound; when the server does not answer it returns an
// error at that bound instead of waiting for the server, the release goes
// on in the background and frees the lock once the server answers, and
// the next Unlock learns that it did (nil, then ErrNotHeld). In cohort
// mode too.
func TestUnlock_with_an_ended_ctx_against_a_silent_server_releases_in_the_background(t *testing.T) {
	srv := redistest.StartServer(t)
	plainAndCohort(t, func(t *testing.T, opts []lockkit.Option) {
		rc := srv.Client(t)
		silent := &redistest.Silence{Max: 2 * redistest.Hang, Match: redistest.IsScript}
		t.Cleanup(silent.Off)
		rc.AddHook(silent)
		name := redistest.Unique(t)
		m := reentrant.New(redistest.Lockkit(t, rc), name, opts...)
		redistest.MustLock(t, m)
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		silent.On()
		done := make(chan error, 1)
		go func() { done <- m.Unlock(ended) }()
		if err := redistest.Receive(t, done, redistest.Hang, "Unlock with an ended ctx against a silent server"); err == nil {
			t.Fatal("Unlock against a silent server = nil; want an error, its outcome unknown")
		}
		silent.Off()
		ctx := redistest.Ctx(t, redistest.Hang)
		other := reentrant.New(redistest.Lockkit(t, srv.Client(t)), name)
		redistest.Eventually(t, redistest.Hang, "the release left behind to free the lock", func() bool {
			locked, err := other.IsLocked(ctx)
			return !locked && err == nil
		})
		if err := m.Unlock(ctx); err != nil {
			t.Fatalf("Unlock after the release went through = %v, want nil", err)
		}
		redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	})
}
