package lockkit_test

import (
	"slices"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTrace_an_acquire_whose_reply_was_lost_and_undone_reports_no_hold
// checks, for every kind, that a Lock whose acquire ran in Redis but
// whose reply was lost, and which undid what it took, reports no hold for
// it: no Acquired, no Released, no Lost. (A RedLock tries another round,
// which takes the lock: that hold is reported, once.) The next Lock and
// Unlock report one hold, from its start to its end.
func TestTrace_an_acquire_whose_reply_was_lost_and_undone_reports_no_hold(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		drop := &redistest.DropReply{Match: redistest.IsScript}
		var log traceLog
		m := hooked(t, k, drop, &log)
		drop.Arm()
		err := m.Lock(redistest.Ctx(t, redistest.Hang))
		if drop.Armed() {
			t.Fatal("no script's reply was dropped")
		}
		var want []string
		if err == nil { // took the lock with another attempt
			redistest.MustUnlock(t, m)
			want = []string{"Acquired", "Released"}
		}
		if got := holdEvents(log.all()); !slices.Equal(got, want) {
			t.Fatalf("events of a Lock whose first acquire was undone (Lock: %v): %v; want %v", err, got, want)
		}
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
		if got, want := holdEvents(log.all()), append(want, "Acquired", "Released"); !slices.Equal(got, want) {
			t.Fatalf("events %v; want %v", got, want)
		}
	})
}

// holdEvents returns the hook names of events, but for the waits'.
func holdEvents(events []traceEvent) []string {
	return slices.DeleteFunc(hooksOf(events), func(h string) bool { return h == "WaitStart" || h == "WaitDone" })
}

// TestTrace_an_Unlock_in_doubt_settled_later_reports_Released_once checks,
// for every kind, that an Unlock whose request never left (its outcome
// unknown to the caller) reports nothing until the release is settled,
// in the background or by the next Unlock, and then Released once, with
// the hold's token, ended and without error; the Unlock that returns the
// settled outcome reports nothing more, and no Lost is reported.
func TestTrace_an_Unlock_in_doubt_settled_later_reports_Released_once(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		refuse := &redistest.RefuseSend{Match: redistest.IsScript}
		var log traceLog
		m := hooked(t, k, refuse, &log)
		redistest.MustLock(t, m)
		refuse.Arm()
		ctx := redistest.Ctx(t, redistest.Hang)
		redistest.WantErr(t, m.Unlock(ctx), redistest.ErrNotSent)
		if got := log.hooks(); !slices.Equal(got, []string{"Acquired"}) {
			t.Fatalf("events after the Unlock in doubt: %v; want Acquired only", got)
		}
		// Settled in the background, or by this second call.
		if err := m.Unlock(ctx); err != nil {
			t.Fatalf("Unlock after one in doubt = %v; want nil", err)
		}
		if got, want := log.hooks(), []string{"Acquired", "Released"}; !slices.Equal(got, want) {
			t.Fatalf("events %v; want %v", got, want)
		}
		ev := log.all()
		if r := ev[1]; r.token != ev[0].token || !r.ended || r.err != nil {
			t.Errorf("Released = %+v; want the end of hold %d, without error", r, ev[0].token)
		}
	})
}
