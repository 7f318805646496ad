package soak_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lockkit/lockkit"
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
		redistest.Eventually(t, callBound, "the hold to be reported lost", func() bool { return redistest.AnyClosed(r.holder.lost()) })
	}
	if end != nil {
		end()
	}
	e.finishLock(t, r, f)
}

// lockWaits is what a round of a lock has active across its fault: the
// holder and the two waiters.
type lockWaits struct {
	holder owner
	w1, w2 waiter
}

// beginLock takes e's lock with owner 0 of side a and starts the Locks of
// owner 1 of side b and owner 2 of side a, returning once they wait. When
// obs is not nil (an election), it must see owner 0 lead.
func (e *env) beginLock(t *testing.T, obs *observer) lockWaits {
	t.Helper()
	holder := e.owner(e.a, 0)
	if err := holder.Lock(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("Lock: %v", err)
	}
	e.fenced(t, "the holder", redistest.TokensOf(holder.parts))
	if obs != nil {
		obs.sees(t, candidateValue(0))
	}
	ctx := redistest.Ctx(t, redistest.Hang)
	return lockWaits{holder: holder, w1: e.wait(t, ctx, e.b, 1), w2: e.wait(t, ctx, e.a, 2)}
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

// owner returns the i-th owner of e's lock on side s.
func (e *env) owner(s side, i int) owner { return e.k.owner(s.nodes, e.name, i) }

// waiter is an owner waiting in Lock, started by wait.
type waiter struct {
	owner
	done <-chan error
}

// wait starts the Lock of the i-th owner of e's lock on side s, with ctx,
// and returns once the side has one more Lock waiting. In cohort mode a
// Lock on the holder's side waits in memory, which no trace reports: wait
// returns at once then.
func (e *env) wait(t *testing.T, ctx context.Context, s side, i int) waiter {
	t.Helper()
	before := s.waiting.Load()
	o := e.owner(s, i)
	w := waiter{owner: o, done: redistest.LockAsync(ctx, o)}
	if e.k.cohort && s.waiting == e.a.waiting {
		return w
	}
	redistest.Eventually(t, callBound, "the Lock to wait", func() bool { return s.waiting.Load() > before })
	return w
}

// release unlocks holder after a fault whose outcome for a hold is want:
// its Unlock must return nil for a hold kept and ErrLost for one lost, and
// its lost signal must say the same.
func release(t *testing.T, holder owner, want outcome) {
	t.Helper()
	sigs := holder.lost() // an Unlock may end the hold's signals
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
func (e *env) serve(t *testing.T, lossy bool, ws ...waiter) {
	t.Helper()
	type result struct {
		i   int
		err error
	}
	got := make(chan result, len(ws))
	for i, w := range ws {
		go func() { got <- result{i, <-w.done} }()
	}
	for range ws {
		r := redistest.Receive(t, got, callBound, fmt.Sprintf("a waiter of %d to take the lock", len(ws)))
		if r.err != nil {
			t.Fatalf("waiter %d: Lock = %v", r.i, r.err)
		}
		sigs, toks := ws[r.i].lost(), redistest.TokensOf(ws[r.i].parts)
		if len(got) > 0 && lossy {
			// Two masters for a while: one of the two holds is on the one
			// that is made a replica, and must be reported lost.
			o := <-got
			other := ws[o.i].lost()
			redistest.Eventually(t, callBound, "one of two holds taken at once to be reported lost", func() bool {
				return redistest.AnyClosed(sigs) || o.err == nil && redistest.AnyClosed(other)
			})
			got <- o
		} else if len(got) > 0 {
			t.Errorf("waiter %d's Lock returned while waiter %d held the lock", (<-got).i, r.i)
		}
		if lossy && redistest.AnyClosed(sigs) {
			if err := settledUnlock(t, ws[r.i].owner); !errors.Is(err, lockkit.ErrLost) {
				t.Fatalf("waiter %d: Unlock of a hold reported lost = %v; want ErrLost", r.i, err)
			}
			continue
		}
		e.fenced(t, fmt.Sprintf("waiter %d", r.i), toks) // read while the hold was not lost
		if err := settledUnlock(t, ws[r.i].owner); err != nil {
			t.Fatalf("waiter %d: Unlock = %v", r.i, err)
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
		if p < len(e.tokens) && (tok < e.tokens[p] || tok == e.tokens[p] && !e.k.cohort) {
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
func settledUnlock(t *testing.T, o owner) error {
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
