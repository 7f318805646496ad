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
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		batch, lost, next, more := w.round(time.Now())
		if !more {
			return
		}
		for _, f := range lost {
			f()
		}
		if len(batch) > 0 {
			go w.renew(batch)
		}
		var fire <-chan time.Time
		if !next.IsZero() {
			if timer == nil {
				timer = time.NewTimer(time.Until(next))
			} else {
				timer.Reset(time.Until(next))
			}
			fire = timer.C
		}
		select {
		case <-w.kick:
		case <-fire:
		}
	}
}

// round looks at every hold at now. It returns the renewals to send (each
// hold marked in flight, w.sending counted), the OnLost calls of the holds
// past their deadline, and when to look again (zero: only when kicked);
// more is false, and the goroutine done, when no hold is left.
func (w *Watchdog) round(now time.Time) (batch []renewal, lost []func(), next time.Time, more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next = time.Time{}
	w.rounds++
	if len(w.holds) == 0 {
		w.running = false
		return nil, nil, time.Time{}, false
	}
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
		// close together share a round trip.
		if !h.due.After(now.Add(h.lease.TTL / 6)) {
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
	w.next = next
	return batch, lost, next, true
}

// endCause returns why h is lost at its deadline. w.mu held.
func (h *Hold) endCause() error {
	switch {
	case h.lease.Script == nil:
		return ErrLeaseEnded
	case h.capped():
		return ErrMaxHold
	case h.lastErr != nil:
		return fmt.Errorf("%w: last error: %w", ErrNotRenewed, h.lastErr)
	}
	return ErrNotRenewed
}
