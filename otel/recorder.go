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

func (r *recorder) acquired(i lockkit.AcquiredInfo) {
	r.ins.acquisitions.Add(bg, 1, r.attrs(i.Lock, keyContended.Bool(i.Contended), keyReentry.Bool(i.Reentry)))
	if !i.Reentry && r.ledger.hold(holdKey{i.Lock, i.Token}) {
		r.ins.held.Add(bg, 1, r.attrs(i.Lock))
	}
}

// released ends the hold when the release ended it or found it lost (a
// lost hold is over, whatever its count was).
func (r *recorder) released(i lockkit.ReleasedInfo) {
	lost := errors.Is(i.Err, lockkit.ErrLost)
	if !i.Ended && !lost {
		return
	}
	outcome := outcomeReleased
	if i.Err != nil {
		outcome = outcomeLost
	}
	r.endHold(i.Lock, i.Token, i.Held, outcome)
}

func (r *recorder) lost(i lockkit.LostInfo) {
	r.ins.lost.Add(bg, 1, r.attrs(i.Lock))
	r.endHold(i.Lock, i.Token, i.Held, outcomeLost)
}

// endHold measures the end of the hold of l with token, once: a hold found
// lost and then unlocked is reported ended twice, and a hold taken before
// Instrument was never counted.
func (r *recorder) endHold(l lockkit.LockInfo, token int64, held time.Duration, outcome string) {
	if !r.ledger.end(holdKey{l, token}) {
		return
	}
	r.ins.held.Add(bg, -1, r.attrs(l))
	r.ins.holdDuration.Record(bg, held.Seconds(), r.attrs(l, keyOutcome.String(outcome)))
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
