package election

import (
	"context"
	"errors"
	"sync"
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
// confirmed, so that every change after that is noticed. Leaders
// proclaim themselves and resign with a message on that channel, so an
// observer learns of them at once; a leader that dies says nothing, so
// each observer also reads again when the leader's lease would run out
// (about once per two thirds of the lease while a leader lives). A
// failed read (a restart under way, say) is retried when the notifier
// reconnects, and at the latest after 250 ms. Changes are read, not
// queued: each message makes the observer read who leads now, so that a
// leadership that ends before that read (one won and resigned at once)
// is skipped, and an observer that does not keep up skips the leaders in
// between and gets the latest when it reads the channel again, holding up
// nobody else. The leaders reported are always in order of term. Two
// goroutines per call, which end with the channel.
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

// observe reads the leader and hands it to a forwarder for out when it
// changed, then sleeps until a message, a reconnect, or the leader's
// lease, and again, until ctx ends or the Client closes. It never waits
// for the observer: a value out has not taken yet is replaced by the
// newer one (see latest).
func (e *Election) observe(ctx context.Context, w *notify.Waiter, out chan<- Leader) {
	l := newLatest()
	stopped := make(chan struct{})
	go func() {
		defer close(out)
		l.forward(out, stopped)
	}()
	defer close(stopped)
	defer w.Leave(true)
	var last Leader
	sent := false
	for {
		cur, wait, err := e.read(ctx, "observe")
		switch {
		case err == nil && (!sent || cur != last):
			l.put(cur)
			last, sent = cur, true
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

// latest holds the last leader read that the observer has not taken yet.
type latest struct {
	mu    sync.Mutex
	v     Leader
	has   bool
	ready chan struct{} // a value was put; capacity 1
}

func newLatest() *latest { return &latest{ready: make(chan struct{}, 1)} }

// put replaces the value held, if any, by v.
func (l *latest) put(v Leader) {
	l.mu.Lock()
	l.v, l.has = v, true
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

// take returns the value held and empties l; false when there is none.
func (l *latest) take() (Leader, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.v, l.has
	l.v, l.has = Leader{}, false
	return v, ok
}

// forward sends each value put in l on out, the newest when several were
// put before the observer took one, until stopped is closed.
func (l *latest) forward(out chan<- Leader, stopped <-chan struct{}) {
	for {
		select {
		case <-l.ready:
		case <-stopped:
			return
		}
		v, ok := l.take()
		for ok {
			select {
			case out <- v:
				ok = false
			case <-l.ready:
				// A newer one came while the observer did not read.
				if nv, nok := l.take(); nok {
					v = nv
				}
			case <-stopped:
				return
			}
		}
	}
}
