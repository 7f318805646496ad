package election_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestResign_with_an_ended_ctx_against_a_stalled_server_waits_500ms_and_a_retry_settles_it:
// a Resign called with a ctx that had ended, while the server does not
// answer, waits core.CleanupTimeout for the release at most and fails;
// its leadership's Context ends at once, as after every Resign; once the
// server answers again, a second Resign settles it (the release went
// through: it reports success), and the candidate campaigns again.
func TestResign_with_an_ended_ctx_against_a_stalled_server_waits_500ms_and_a_retry_settles_it(t *testing.T) {
	srv, c, name := redistest.OnServer(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	e := election.New(c, name, lockkit.WithWatchdogTimeout(5*time.Minute))
	l := mustCampaign(ctx, t, e, "a")
	srv.Stall(t, 2*time.Second)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := l.Resign(ended)
	took := time.Since(start)
	redistest.WantErr(t, err, context.DeadlineExceeded)
	// Loose, against a loaded machine.
	if took > core.CleanupTimeout+300*time.Millisecond {
		t.Errorf("Resign with an ended ctx took %v against a stalled server; want about %v", took, core.CleanupTimeout)
	}
	// The leader gave the leadership up: its work stops now, not once
	// the retry tells, nor when the lease would end (here after another
	// candidate could lead, had the server lost the hold meanwhile).
	select {
	case <-l.Context().Done():
		redistest.WantErr(t, context.Cause(l.Context()), lockkit.ErrNotHeld)
	default:
		t.Error("the leadership's Context lasts after a Resign in doubt")
	}
	_, err = e.Campaign(ctx, "b")
	redistest.WantErr(t, err, lockkit.ErrInvalid)
	if err := l.Resign(ctx); err != nil {
		t.Fatalf("Resign once the server answers = %v, want nil", err)
	}
	if got, err := e.Leader(ctx); got != (election.Leader{}) || err != nil {
		t.Fatalf("Leader after Resign = %+v, %v; want nobody", got, err)
	}
	b := mustCampaign(ctx, t, e, "b")
	if err := b.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}
