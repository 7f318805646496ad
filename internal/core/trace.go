package core

import (
	"context"
	"time"

	"github.com/lockkit/lockkit"
)

// Tracer reports one lock value's events to the hooks of its Client (see
// lockkit.Client.AddTrace) and to its own (lockkit.WithTrace). A nil
// Tracer, or one with no hooks, reports nothing and costs a check.
type Tracer struct {
	client *lockkit.Client
	own    *lockkit.Trace
	info   lockkit.LockInfo
}

// NewTracer returns the tracer of the lock value cfg describes; read marks
// the read side of an rwlock. quiet makes a tracer that reports nothing
// (the parts of a RedLock's hold, say).
func NewTracer(cfg *Config, read, quiet bool) *Tracer {
	if quiet {
		return nil
	}
	own, _ := cfg.Trace.(*lockkit.Trace)
	return &Tracer{
		client: cfg.Client,
		own:    own,
		info:   lockkit.LockInfo{Kind: cfg.Kind, Name: cfg.Name, Owner: cfg.Owner, Read: read},
	}
}

// each calls f with every hook set of t. A hook that panics is recovered
// (see lockkit.Trace): the other hooks still get the event, and the lock
// goes on.
func (t *Tracer) each(f func(*lockkit.Trace)) {
	for _, tr := range t.client.Traces() {
		callHook(f, tr)
	}
	if t.own != nil {
		callHook(f, t.own)
	}
}

// callHook calls f with tr, and recovers a panic of the hook f calls.
func callHook(f func(*lockkit.Trace), tr *lockkit.Trace) {
	defer func() { _ = recover() }()
	f(tr)
}

// on reports whether t has hooks to report to.
func (t *Tracer) on() bool {
	return t != nil && (t.own != nil || len(t.client.Traces()) > 0)
}

// contendedKey marks the ctx of the attempts a wait makes after its
// first: the hold they take was contended.
type contendedKey struct{}

// Contended reports whether ctx is that of an attempt a wait made after
// its first (see Wait), when anyone listens.
func Contended(ctx context.Context) bool { return ctx.Value(contendedKey{}) != nil }

func noWait(error) {}

// waitStart reports a wait, begun at start, and returns the ctx of the
// attempts that follow (marked contended, when anyone listens) and the
// function that reports its end.
func (t *Tracer) waitStart(ctx context.Context, start time.Time) (context.Context, func(err error)) {
	if !t.on() {
		return ctx, noWait
	}
	ctx = context.WithValue(ctx, contendedKey{}, true)
	t.each(func(tr *lockkit.Trace) {
		if tr.WaitStart != nil {
			tr.WaitStart(lockkit.WaitStartInfo{Lock: t.info})
		}
	})
	return ctx, func(err error) {
		info := lockkit.WaitDoneInfo{Lock: t.info, Waited: time.Since(start), Err: err}
		t.each(func(tr *lockkit.Trace) {
			if tr.WaitDone != nil {
				tr.WaitDone(info)
			}
		})
	}
}

// Acquired reports a hold taken (or re-entered, reentry).
func (t *Tracer) Acquired(token int64, reentry, contended bool) {
	if !t.on() {
		return
	}
	info := lockkit.AcquiredInfo{Lock: t.info, Token: token, Reentry: reentry, Contended: contended}
	t.each(func(tr *lockkit.Trace) {
		if tr.Acquired != nil {
			tr.Acquired(info)
		}
	})
}

// Released reports a release of h; ended when it ended the hold.
func (t *Tracer) Released(h *Hold, ended bool, err error) {
	if !t.on() {
		return
	}
	info := lockkit.ReleasedInfo{Lock: t.info, Token: h.Token, Held: time.Since(h.since), Ended: ended, Err: err}
	t.each(func(tr *lockkit.Trace) {
		if tr.Released != nil {
			tr.Released(info)
		}
	})
}

// Lost reports h lost.
func (t *Tracer) Lost(h *Hold) {
	if !t.on() {
		return
	}
	info := lockkit.LostInfo{Lock: t.info, Token: h.Token, Held: time.Since(h.since), Err: h.Err()}
	t.each(func(tr *lockkit.Trace) {
		if tr.Lost != nil {
			tr.Lost(info)
		}
	})
}
