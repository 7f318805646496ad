package lockkit_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestTrace_a_hold_whose_keys_vanish_is_reported_Lost_once_then_Released_by_Unlock
// checks, for every kind, that a hold whose keys vanish from Redis (a
// FLUSHDB, an operator's DEL) is reported Lost once, by the watchdog, with
// the hold's token, how long it lasted and an error matching ErrLost; its
// Unlock then returns ErrLost and reports Released once, ended, with that
// error and token; nothing else is reported.
func TestTrace_a_hold_whose_keys_vanish_is_reported_Lost_once_then_Released_by_Unlock(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		_, ev := lostAndReleased(t, k, vanish)
		token := ev[0].token
		if l := ev[1]; l.token != token || !errors.Is(l.err, lockkit.ErrLost) || l.held <= 0 {
			t.Errorf("Lost = %+v; want token %d, ErrLost and how long the hold lasted", l, token)
		}
		if r := ev[2]; r.token != token || !r.ended || !errors.Is(r.err, lockkit.ErrLost) || r.held < ev[1].held {
			t.Errorf("Released = %+v; want the end of hold %d with ErrLost, held at least %v", r, token, ev[1].held)
		}
	})
}

// TestTrace_Close_reports_each_open_hold_Lost_once_and_later_calls_only_their_own_events
// checks, for every kind, that Close reports every hold still open Lost
// once, with an error matching ErrLost and ErrClosed, to the Client's
// hooks and to the lock's own, and closes its lost signal, before it
// returns; and that once it returned only the calls made later report
// anything: each Unlock reports Released once, ending its hold with that
// error.
func TestTrace_Close_reports_each_open_hold_Lost_once_and_later_calls_only_their_own_events(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		srv := redistest.StartServer(t)
		var client, own traceLog
		lc := redistest.Lockkit(t, srv.Client(t), lockkit.WithTrace(client.trace()))
		a := k.new(lc, redistest.Unique(t), lockkit.WithTrace(own.trace()))
		b := k.new(lc, redistest.Unique(t))
		redistest.MustLock(t, a)
		redistest.MustLock(t, b)
		if err := lc.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := client.hooks(), []string{"Acquired", "Acquired", "Lost", "Lost"}; !slices.Equal(got, want) {
			t.Fatalf("Client's events when Close returned: %v; want %v", got, want)
		}
		ctx := redistest.Ctx(t, redistest.Hang)
		for _, m := range []tracedLock{a, b} {
			if !redistest.Closed(m.Lost()) {
				t.Fatalf("%s's lost signal still open when Close returned", m.Name())
			}
		}
		for _, m := range []tracedLock{a, b} {
			redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost, lockkit.ErrClosed)
		}

		want := []string{"Acquired", "Acquired", "Lost", "Lost", "Released", "Released"}
		if got := client.hooks(); !slices.Equal(got, want) {
			t.Fatalf("Client's events: %v; want %v", got, want)
		}
		if got, want := own.hooks(), []string{"Acquired", "Lost", "Released"}; !slices.Equal(got, want) {
			t.Fatalf("a's own events: %v; want %v", got, want)
		}
		ends := map[string]int{}
		for _, e := range client.all()[2:] {
			if !errors.Is(e.err, lockkit.ErrLost) || !errors.Is(e.err, lockkit.ErrClosed) || e.hook == "Released" && !e.ended {
				t.Errorf("%s of %s: %+v; want ErrLost and ErrClosed, and the hold ended", e.hook, e.lock.Name, e)
			}
			ends[e.lock.Name+" "+e.hook]++
		}
		for _, m := range []tracedLock{a, b} {
			if ends[m.Name()+" Lost"] != 1 || ends[m.Name()+" Released"] != 1 {
				t.Errorf("%s: Lost and Released reported %d and %d times; want once each", m.Name(), ends[m.Name()+" Lost"], ends[m.Name()+" Released"])
			}
		}
	})
}
