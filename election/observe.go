package election

import (
	"context"
	"errors"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/notify"
)

// Observe reports who leads the election, on the channel it returns: first
// the current leader, then each change, the zero Leader included when the
// leadership falls vacant (a resignation, or a dead leader's lease
// running out). The channel is closed when ctx ends, the Client or its
// go-redis client is closed, or the name turns out to be another kind's.
//
// Observe returns once its subscription to the election's channel is
// confirmed, so that every change after that is reported. Leaders
// proclaim themselves and resign with a message on that channel, so an
// observer learns of them at once; a leader that dies says nothing, so
// each observer also reads again when the leader's lease would run out
// (about once per two thirds of the lease while a leader lives). A
// failed read (a restart under way, say) is retried when the notifier
// reconnects, and at the latest after 250 ms. Changes are read, not
// queued: one observer that does not keep up skips the leaders in
// between, and holds up nobody else; when it reads the channel again, it
// first gets the leader read when it stopped reading, then at once the
// latest. One goroutine per call, which ends with the channel.
//
// When ctx ends before the subscription is confirmed, the error matches
// both [lockkit.ErrNotObtained] and ctx.Err(), as a Campaign's does.
func (e *Election) Observe(ctx context.Context) (<-chan Leader, error) {
	if err := e.base().Check(ctx); err != nil {
		return nil, err
	}
	c := e.b.Cfg.Client
	w, err := c.Notifier().Subscribe(ctx, e.observers())
	if err != nil {
		return nil, core.CtxError(ctx, e.b.Cfg.Name, core.Op("observe", e.b.Cfg.Name, err))
	}
	out := make(chan Leader)
	go e.observe(ctx, w, out)
	return out, nil
}

// observe reads the leader and sends it on out when it changed, then
// sleeps until a message, a reconnect, or the leader's lease, and again,
// until ctx ends or the Client closes.
func (e *Election) observe(ctx context.Context, w *notify.Waiter, out chan<- Leader) {
	defer close(out)
	defer w.Leave(true)
	done := e.b.Cfg.Client.Done()
	var last Leader
	sent := false
	for {
		cur, wait, err := e.read(ctx, "observe")
		switch {
		case err == nil && (!sent || cur != last):
			select {
			case out <- cur:
				last, sent = cur, true
			case <-ctx.Done():
				return
			case <-done:
				return
			}
		case err == nil:
		case ctx.Err() != nil || errors.Is(err, lockkit.ErrWrongKind) || core.ClientClosed(err):
			return
		default:
			wait = core.ReadRetry
		}
		if wait >= 0 {
			// Let the server expire the lease before looking again.
			wait += time.Millisecond
		}
		if err := w.Wait(ctx, wait); err != nil {
			return
		}
	}
}
