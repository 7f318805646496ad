package watchdog

import (
	"fmt"
	"time"
)

// renewal is one renewal of a hold, sent as flight.
type renewal struct {
	h      *Hold
	flight uint64
}

// run keeps the time of every hold until none is left, then closes exited.
// It wakes at the next renewal due or deadline, whichever comes first,
// reports the holds past their deadline lost, and hands the due renewals
// to a goroutine that sends them, so that nothing it does waits for the
// network: a renewal stuck on a silent server never delays the report of
// a loss or the renewal of another hold.
func (w *Watchdog) run(exited chan struct{}) {
	defer close(exited)
	for {
		batch, lost, more := w.round(time.Now())
		if !more {
			return
		}
		for _, f := range lost {
			f()
		}
		if len(batch) > 0 {
			go w.renew(batch)
		}
		select {
		case <-w.kick:
		case <-w.timer.C:
		}
	}
}

// idleExit is how soon after its last hold stopped the goroutine wakes to
// exit, unless it wakes sooner anyway.
const idleExit = 100 * time.Millisecond

// arm makes the goroutine look at the holds again at next; zero: only when
// kicked. w.mu held.
func (w *Watchdog) arm(next time.Time) {
	w.next = next
	if next.IsZero() {
		w.timer.Stop()
		return
	}
	w.timer.Reset(time.Until(next))
}

// round looks at every hold at now. It returns the renewals to send (each
// hold marked in flight, w.sending counted) and the OnLost calls of the
// holds past their deadline, and arms the timer for the next look; more is
// false, and the goroutine done, when no hold is left.
func (w *Watchdog) round(now time.Time) (batch []renewal, lost []func(), more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rounds++
	if len(w.holds) == 0 {
		w.running = false
		w.arm(time.Time{})
		return nil, nil, false
	}
	var next time.Time
	earliest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for h := range w.holds {
		if h.state != active {
			continue
		}
		if end := h.deadline(); !now.Before(end) {
			// Even with a renewal in flight: its reply may come after the
			// server's lease lapsed.
			if f := h.lose(h.endCause()); f != nil {
				lost = append(lost, f)
			}
			continue
		} else {
			earliest(end)
		}
		if h.lease.Script == nil || h.flight != 0 || h.capped() {
			continue
		}
		// Renew early what falls due within half a period, so holds taken
		// close together share a round trip; but not a retry of a failed
		// renewal, which falls due sooner than that: it would be sent again
		// at once, and again, for as long as the server answers with an
		// error.
		early := h.lease.TTL / 6
		if h.lastErr != nil {
			early = 0
		}
		if !h.due.After(now.Add(early)) {
			w.flights++
			h.flight = w.flights
			batch = append(batch, renewal{h, h.flight})
		} else {
			earliest(h.due)
		}
	}
	if len(batch) > 0 {
		w.sending++
	}
	if len(w.holds) == 0 {
		// Every hold was lost: look again to exit, as after the last Stop.
		next = now.Add(idleExit)
	}
	w.arm(next)
	return batch, lost, true
}

// endCause returns why h is lost at its deadline. w.mu held.
func (h *Hold) endCause() error {
	switch {
	case h.lease.Script == nil || h.lease.Fixed:
		return ErrLeaseEnded
	case h.capped():
		return ErrMaxHold
	case h.lastErr != nil:
		return fmt.Errorf("%w: last error: %w", ErrNotRenewed, h.lastErr)
	}
	return ErrNotRenewed
}
