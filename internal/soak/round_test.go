package soak_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// lockRound runs one round of e's lock across fault f: owner 0 of side a
// holds the lock, owner 1 of side b and owner 2 of side a wait for it,
// then f is injected and ended. The hold must then be kept or reported
// lost as f documents, and the waiters must take the lock one after the
// other. When obs is not nil (an election), it must see owner 0 lead.
func (e *env) lockRound(t *testing.T, f fault, obs *observer) {
	r := e.beginLock(t, obs)
	end := f.start(t, e)
	if f.hold == lost {
		redistest.Eventually(t, callBound, "the hold to be reported lost", func() bool { return redistest.AnyClosed(r.holder.Lost()) })
	}
	if end != nil {
		end()
	}
	e.finishLock(t, r, f)
}

// lockWaits is what a round of a lock has active across its fault: the
// holder and the two waiters.
type lockWaits struct {
	holder faultkit.Owner
	w1, w2 faultkit.Waiter
}

// beginLock takes e's lock with owner 0 of side a and starts the Locks of
// owner 1 of side b and owner 2 of side a, returning once they wait. When
// obs is not nil (an election), it must see owner 0 lead.
func (e *env) beginLock(t *testing.T, obs *observer) lockWaits {
	t.Helper()
	holder := e.Owner(e.A, 0)
	faultkit.MustLock(t, holder)
	e.fenced(t, "the holder", holder.Tokens())
	if obs != nil {
		obs.sees(t, faultkit.CandidateValue(0))
	}
	ctx := redistest.Ctx(t, redistest.Hang)
	return lockWaits{holder: holder, w1: e.Wait(t, ctx, e.B, 1), w2: e.WaitBeside(t, ctx, e.A, 2)}
}

// finishLock ends a round begun by beginLock once its fault f is over:
// the hold must have had f's outcome (see release), and the waiters must
// take the lock one after the other (see serve).
func (e *env) finishLock(t *testing.T, r lockWaits, f fault) {
	t.Helper()
	e.oneConnEach(t)
	release(t, r.holder, f.hold)
	e.serve(t, f.lossy, r.w1, r.w2)
}

// release unlocks holder after a fault whose outcome for a hold is want:
// its Unlock must return nil for a hold kept and ErrLost for one lost, and
// its lost signal must say the same.
func release(t *testing.T, holder faultkit.Owner, want outcome) {
	t.Helper()
	sigs := holder.Lost() // an Unlock may end the hold's signals
	if want == kept && redistest.AnyClosed(sigs) {
		t.Fatal("hold reported lost across a fault that keeps it")
	}
	wasLost := redistest.AnyClosed(sigs)
	err := settledUnlock(t, holder)
	gotLost := errors.Is(err, lockkit.ErrLost)
	switch {
	case err != nil && !gotLost:
		t.Fatalf("Unlock of the holder = %v; want nil or ErrLost", err)
	case want == kept && gotLost:
		t.Fatalf("Unlock of a hold kept = %v; want nil", err)
	case want == lost && !gotLost:
		t.Fatalf("Unlock of a hold reported lost = %v; want ErrLost", err)
	case gotLost:
		redistest.Eventually(t, callBound, "the lost signal of a hold whose Unlock said ErrLost", func() bool {
			return redistest.AnyClosed(sigs)
		})
	case wasLost:
		t.Fatal("Unlock of a hold reported lost = nil; want ErrLost")
	}
}

// serve waits for the waiters to take the lock, in whatever order, each
// within callBound of the one before: each Lock must return nil, with
// tokens that fence the holds before (see fenced), and is unlocked (nil)
// once no other waiter's Lock was seen to return meanwhile. When lossy is
// set, a waiter's hold may be reported lost instead, its Unlock then
// returning ErrLost, and two waiters' Locks may return at once, as a
// failover may leave two masters for a while, if one of the two holds is
// then reported lost.
func (e *env) serve(t *testing.T, lossy bool, ws ...faultkit.Waiter) {
	t.Helper()
	got := faultkit.Returns(ws)
	for range ws {
		r := faultkit.NextTaken(t, got, len(ws), callBound)
		sigs, toks := ws[r.I].Lost(), ws[r.I].Tokens()
		if len(got) > 0 && lossy {
			// Two masters for a while: one of the two holds is on the one
			// that is made a replica, and must be reported lost.
			o := <-got
			other := ws[o.I].Lost()
			redistest.Eventually(t, callBound, "one of two holds taken at once to be reported lost", func() bool {
				return redistest.AnyClosed(sigs) || o.Err == nil && redistest.AnyClosed(other)
			})
			got <- o
		} else if len(got) > 0 {
			t.Errorf("waiter %d's Lock returned while waiter %d held the lock", (<-got).I, r.I)
		}
		if lossy && redistest.AnyClosed(sigs) {
			if err := settledUnlock(t, ws[r.I].Owner); !errors.Is(err, lockkit.ErrLost) {
				t.Fatalf("waiter %d: Unlock of a hold reported lost = %v; want ErrLost", r.I, err)
			}
			continue
		}
		e.fenced(t, fmt.Sprintf("waiter %d", r.I), toks) // read while the hold was not lost
		if err := settledUnlock(t, ws[r.I].Owner); err != nil {
			t.Fatalf("waiter %d: Unlock = %v", r.I, err)
		}
	}
}

// oneConnEach fails the test if a Client of e keeps more than one PubSub
// connection.
func (e *env) oneConnEach(t *testing.T) {
	t.Helper()
	for i, c := range e.clients() {
		if _, conns := c.Notifier().Kept(); conns > 1 {
			t.Errorf("Client %d keeps %d PubSub connections; want at most 1", i, conns)
		}
	}
}

// fenced checks that toks, the tokens of a hold, are larger, part by
// part, than those of every hold of e's lock before, across all the
// rounds and their faults, and makes them the ones the next holds must
// exceed. In cohort mode a hold handed over in memory keeps the token of
// the hold before, which it may then equal.
func (e *env) fenced(t *testing.T, who string, toks []int64) {
	t.Helper()
	for p, tok := range toks {
		if p < len(e.tokens) && (tok < e.tokens[p] || tok == e.tokens[p] && !e.K.Cohort) {
			t.Errorf("%s holds part %d with token %d, not larger than the %d of a hold before", who, p, tok, e.tokens[p])
		}
	}
	e.tokens = toks
}

// settledUnlock unlocks o, calling Unlock again while its outcome is
// unknown (an error that is neither ErrLost nor ErrNotHeld: a RedLock
// whose nodes did not answer within its node timeout, a tenth of the
// lease, say), as the kinds document, for at most callBound in all. It
// returns the outcome.
func settledUnlock(t *testing.T, o faultkit.Owner) error {
	t.Helper()
	ctx := redistest.Ctx(t, callBound)
	for {
		err := o.Unlock(ctx)
		if err == nil || errors.Is(err, lockkit.ErrLost) || errors.Is(err, lockkit.ErrNotHeld) || ctx.Err() != nil {
			return err
		}
		t.Logf("Unlock in doubt, called again: %v", err)
	}
}
