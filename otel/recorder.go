package otel

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/lockkit/lockkit"
)

// recorder turns the events of a [lockkit.Trace] into measurements.
type recorder struct {
	ins      *instruments
	lockName bool // lock.name on lock measurements (WithLockName)
	ledger   *ledger
}

func newRecorder(ins *instruments, lockName bool) *recorder {
	return &recorder{ins: ins, lockName: lockName, ledger: newLedger()}
}

// trace returns the hooks that feed r.
func (r *recorder) trace() *lockkit.Trace {
	return &lockkit.Trace{
		WaitStart:   r.waitStart,
		WaitDone:    r.waitDone,
		Acquired:    r.acquired,
		Released:    r.released,
		Renewed:     r.renewed,
		Lost:        r.lost,
		Reconnected: r.reconnected,
	}
}

// Hooks carry no context; measurements are made with this one.
var bg = context.Background()

func (r *recorder) attrs(l lockkit.LockInfo, extra ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributes(lockAttrs(l, r.lockName, extra...)...)
}

func (r *recorder) waitStart(i lockkit.WaitStartInfo) {
	r.ledger.wait(i.Lock)
	r.ins.waiting.Add(bg, 1, r.attrs(i.Lock))
}

func (r *recorder) waitDone(i lockkit.WaitDoneInfo) {
	if r.ledger.waited(i.Lock) {
		r.ins.waiting.Add(bg, -1, r.attrs(i.Lock))
	}
	outcome := outcomeAcquired
	if i.Err != nil {
		outcome = outcomeFailed
	}
	r.ins.waitDuration.Record(bg, i.Waited.Seconds(), r.attrs(i.Lock, keyOutcome.String(outcome)))
}

// acquired counts the acquire, and the hold when it began one. A value
// that takes the hold another value of the same owner id holds (see
// lockkit.WithOwner) re-entered it, though it reports a fresh hold of its
// own.
func (r *recorder) acquired(i lockkit.AcquiredInfo) {
	began := !i.Reentry && r.ledger.hold(holdKey{i.Lock, i.Token})
	reentry := i.Reentry || !began
	r.ins.acquisitions.Add(bg, 1, r.attrs(i.Lock, keyContended.Bool(i.Contended), keyReentry.Bool(reentry)))
	if began {
		r.ins.held.Add(bg, 1, r.attrs(i.Lock))
	}
}

// released ends the hold when the release ended it or found it lost (a
// lost hold is over, whatever its count was), unless its Lost ended it
// already.
func (r *recorder) released(i lockkit.ReleasedInfo) {
	k := holdKey{i.Lock, i.Token}
	switch {
	case errors.Is(i.Err, lockkit.ErrLost):
		if d, ended := r.ledger.unlockedLost(k, i.Held); ended {
			r.ended(i.Lock, d, outcomeLost)
		}
	case i.Ended:
		if d, _, ended := r.ledger.end(k, i.Held, false); ended {
			r.ended(i.Lock, d, outcomeReleased)
		}
	}
}

// lost counts the loss of a hold once: when the last value that held it
// is told, or at once for a hold taken before Instrument.
func (r *recorder) lost(i lockkit.LostInfo) {
	d, known, ended := r.ledger.end(holdKey{i.Lock, i.Token}, i.Held, true)
	if known && !ended {
		return
	}
	r.ins.lost.Add(bg, 1, r.attrs(i.Lock))
	if ended {
		r.ended(i.Lock, d, outcomeLost)
	}
}

// ended measures the end of a hold of l that lasted d.
func (r *recorder) ended(l lockkit.LockInfo, d time.Duration, outcome string) {
	r.ins.held.Add(bg, -1, r.attrs(l))
	r.ins.holdDuration.Record(bg, d.Seconds(), r.attrs(l, keyOutcome.String(outcome)))
}

func (r *recorder) renewed(i lockkit.RenewInfo) {
	for _, c := range [...]struct {
		n       int
		outcome string
	}{{i.Renewed, outcomeRenewed}, {i.Retry, outcomeRetry}, {i.Lost, outcomeLost}} {
		if c.n > 0 {
			r.ins.renewals.Add(bg, int64(c.n), metric.WithAttributes(keyOutcome.String(c.outcome)))
		}
	}
	outcome := outcomeOK
	if i.Err != nil {
		outcome = outcomeFailed
	}
	r.ins.watchdog.Record(bg, i.Took.Seconds(), metric.WithAttributes(keyOutcome.String(outcome)))
}

func (r *recorder) reconnected(lockkit.ReconnectInfo) {
	r.ins.reconnects.Add(bg, 1)
}
