package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/watchdog"
)

// ErrReply reports a script reply of an unexpected shape.
var ErrReply = errors.New("unexpected reply from script")

// Attempt makes one try at the hold: it takes or re-enters it, or learns
// how long to wait. It returns, when refused, how long the lock may stay
// taken without a release message (negative: no bound; zero: try again at
// once) and, when acquired, the lease of the hold. op names the operation
// in errors; args follow the spec's AcquireArgs.
//
// The protocol: serialise with the owner's other calls, register with the
// watchdog, send, and record the hold. When the reply is lost (a timeout, a
// dropped connection, ctx ending in flight) the acquire may still have
// run, so a hold nobody knows of is undone before Attempt returns.
func (r *Holder) Attempt(ctx context.Context, op string, args ...any) (bool, time.Duration, error) {
	if err := r.lock(ctx); err != nil {
		return false, 0, Op(op, r.cfg.Name, err)
	}
	ok, wait, err := r.attempt(ctx, op, args)
	if errors.Is(err, errStale) {
		// The stale hold is gone now: the acquire is made anew, once.
		if ok, wait, err = r.attempt(ctx, op, args); errors.Is(err, errStale) {
			ok, wait, err = false, 0, nil
		}
	}
	settling := r.settling.Load()
	r.op.Unlock()
	if settling != nil {
		// Return once the undo is done, if ctx allows: the lock is then
		// as the caller left it. Once the Client is closed, ClosedGrace
		// more at most: a server that does not answer holds the undo up,
		// and it goes on in the background.
		select {
		case <-*settling:
		case <-ctx.Done():
		case <-r.cfg.Client.Done():
			closedGrace(ctx, *settling)
		}
	}
	return ok, wait, err
}

// lock locks r.op once no acquire in doubt is being settled, or returns
// ctx's error when ctx ends first. (A closed Client does not end the
// wait: a release waits so too, and still frees what was held.)
func (r *Holder) lock(ctx context.Context) error {
	for {
		if err := r.op.Lock(ctx); err != nil {
			return err
		}
		ch := r.settling.Load()
		if ch == nil {
			return nil
		}
		r.op.Unlock()
		select {
		case <-*ch:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", errNotSent, ctx.Err())
		}
	}
}

// attempt is Attempt with r.op held.
func (r *Holder) attempt(ctx context.Context, op string, args []any) (bool, time.Duration, error) {
	c := r.cfg
	if err := c.Client.Err(); err != nil {
		return false, 0, Op(op, c.Name, err)
	}
	var pre *watchdog.Hold
	if r.Live() == nil {
		pre = c.Client.Watchdog().Register()
	}
	ttl := c.TTL()
	argv := r.acquireRunner.Args(3 + len(r.spec.AcquireArgs) + len(args))
	id := newAttemptID()
	argv = append(argv, r.hold, r.lease, id)
	argv = append(argv, r.spec.AcquireArgs...)
	argv = append(argv, args...)
	sent := time.Now()
	// An acquire left behind when ctx ends freezes what r knows of its
	// hold until its reply comes and whatever it took is undone.
	left := &leftBehind{r: r, id: id}
	res, err := CallUntilClosed(ctx, c.Client, func(ctx context.Context) ([]int64, error) {
		res, err := r.acquireRunner.Run(ctx, c.Client.Redis(), argv).Int64Slice()
		if err == nil && len(res) != 2 {
			err = fmt.Errorf("%w: %v", ErrReply, res)
		}
		return res, err
	}, left.reply)
	if err != nil || res[0] <= 0 {
		abort(pre)
	}
	switch {
	case errors.Is(err, errNoReply):
		left.frozen() // its reply settles it
		return false, 0, Op(op, c.Name, err)
	case errors.Is(err, errNotSent) || isServerError(err):
		return false, 0, Op(op, c.Name, closedFirst(c.Client, err))
	case err != nil:
		// The reply was lost: the acquire may have run.
		r.freeze(id)(true)
		return false, 0, Op(op, c.Name, closedFirst(c.Client, err))
	case res[0] < 0:
		if r.spec.Refused == nil {
			return false, 0, Op(op, c.Name, fmt.Errorf("%w: %v", ErrReply, res))
		}
		return false, 0, r.spec.Refused(res[0])
	case res[0] == 0:
		return false, pttlWait(res[1]), nil
	case res[0] > 1 && c.OwnOwner && r.Live() == nil:
		// Re-entered a hold this value holds nothing of: one reported lost
		// (not renewed in time, or found gone) that is still, or again, in
		// Redis. Counting on it would keep its old token, and the Unlock
		// would leave it held. Take it back, and try again.
		abort(pre)
		if err := r.dropStale(ctx, res[1]); err != nil {
			return false, 0, Op(op, c.Name, err)
		}
		return false, 0, errStale
	}
	if err := c.Client.Err(); err != nil {
		// The Client was closed while the acquire was on its way: its
		// watchdog would report the hold lost at once. Give back what the
		// acquire took.
		abort(pre)
		r.freeze(id)(true)
		return false, 0, Op(op, c.Name, err)
	}
	if res[0] == 1 || !r.cfg.Watched() {
		// A fresh hold, or a re-entry that moved a fixed lease's end, which
		// no renewal will move again: a failover that lost the move would
		// end the hold before its holder is told.
		if err := r.confirm(ctx, id); err != nil { // see replica.go
			abort(pre)
			return false, 0, Op(op, c.Name, err)
		}
	}
	if res[0] == 1 && !r.spec.Timed && time.Since(sent) >= ttl-watchdog.Margin(ttl) {
		// A fresh hold answered too late (the server stalled, say): its
		// lease counts from the send, so it could be another's already,
		// and the watchdog would report it lost at once. Give it back and
		// try again.
		abort(pre)
		r.freeze(id)(true)
		return false, 0, nil
	}
	r.acquired(pre, res[1], sent, Contended(ctx))
	if res[0] == 1 {
		r.storeInfo(ctx, res[1], sent)
	}
	return true, ttl, nil
}

// leftBehind is an acquire, with attempt id, that its caller may leave
// behind when its ctx ends: what r knows of its hold is then frozen (see
// freeze) until the reply comes and settles it.
type leftBehind struct {
	r      *Holder
	id     string
	once   sync.Once
	settle func(undo bool)
	done   chan struct{} // closed once the late reply is dealt with
}

// frozen freezes r, the first time it is called, and returns the function
// that settles the acquire.
func (l *leftBehind) frozen() func(undo bool) {
	l.once.Do(func() {
		l.settle = l.r.freeze(l.id)
		l.done = make(chan struct{})
		l.r.late.Store(&l.done)
	})
	return l.settle
}

// reply deals with the late reply of the acquire: it undoes whatever the
// acquire may have taken, and then lets the kind tidy up (Spec.Late).
func (l *leftBehind) reply(res []int64, err error) {
	l.frozen()(err != nil && !isServerError(err) || err == nil && res[0] > 0)
	if l.r.spec.Late != nil {
		l.r.spec.Late()
	}
	close(l.done)
}

// errStale reports an acquire that found a stale hold of the owner and
// took it back (see attempt): the acquire is to be made anew.
var errStale = errors.New("a stale hold was taken back")

// dropStale takes back the owner's hold with token, which this value holds
// nothing of (an undo to a known count of 0), within ctx.
func (r *Holder) dropStale(ctx context.Context, token int64) error {
	_, err := Call(ctx, r.cfg.Client, func(ctx context.Context) (any, error) {
		return nil, r.runUndo(ctx, token, 0, "")
	}, nil)
	return err
}

// isServerError reports whether err is an error reply from Redis: the
// script ran and failed, and changed nothing.
func isServerError(err error) bool {
	if err == nil {
		return false
	}
	var rerr redis.Error
	return errors.As(err, &rerr) && !errors.Is(err, redis.Nil)
}

// pttlWait turns a refused acquire's wait in ms into a wait: -2 (the hold
// just vanished) means try again now, -1 (no expiry) means no bound.
func pttlWait(ms int64) time.Duration {
	switch {
	case ms == -2:
		return 0
	case ms < 0:
		return -1
	}
	return time.Duration(ms) * time.Millisecond
}

func abort(pre *watchdog.Hold) {
	if pre != nil {
		pre.Stop()
	}
}

// acquired records a successful acquire, sent at sent, of the hold with
// token. The same token as the live hold's re-enters it, and the lease the
// acquire set counts from sent. Another token begins a new hold; the old
// one, if any, is marked lost, unless an Unlock of it is in doubt: then it
// waits for the next Release, which settles that Unlock.
func (r *Holder) acquired(pre *watchdog.Hold, token int64, sent time.Time, contended bool) {
	r.Slot.mu.Lock()
	old := r.Slot.h
	if old != nil && old.Err() == nil && old.Token == token {
		// A re-entry. An Unlock with an unknown outcome keeps its id: the
		// next Release settles it.
		old.Count++
		r.Slot.mu.Unlock()
		abort(pre)
		old.wh.Renewed(sent)
		r.tr.Acquired(token, true, contended)
		return
	}
	h := NewHold(token)
	h.since = sent
	r.Slot.h = h
	r.Slot.mu.Unlock()
	if old != nil {
		r.stop(old)
		old.End()
		if old.unlockID != "" && old.Err() == nil {
			// Its Unlock may have ended it: the next Release asks.
			r.pending = old
		} else {
			r.lose(old, nil)
		}
	}
	if pre == nil {
		pre = r.cfg.Client.Watchdog().Register()
	}
	h.wh = pre
	lease := watchdog.Lease{TTL: r.cfg.TTL(), OnLost: func(cause error) {
		if h.unlocking.Load() && (cause == nil || errors.Is(cause, watchdog.ErrNotRenewed)) {
			// Gone, or not renewed in time, maybe because of the Unlock
			// in doubt: its retry tells.
			return
		}
		r.lose(h, cause)
	}}
	lease.Script, lease.Keys = r.spec.Renew, r.spec.Keys
	if r.spec.RenewKeys != nil {
		lease.Keys = r.spec.RenewKeys
	}
	if r.cfg.Watched() {
		lease.MaxHold = r.cfg.MaxHold
		lease.Args = []any{r.hold, token, r.lease}
	} else {
		// A fixed lease: the renew script with a lease of 0 only verifies
		// it, so that a hold the server lost is reported then.
		lease.Fixed = true
		lease.Args = []any{r.hold, token, 0}
	}
	pre.Start(lease, sent)
	r.tr.Acquired(token, false, contended)
}

// freeze keeps what r knows of its hold from changing until the function
// it returns is called, once: the acquire with attempt id is in doubt (its
// reply was lost, or ctx ended before it came) and may have taken or
// re-entered the hold; a hold nobody knows of would keep everyone out for
// a whole lease. When called with undo set, that function cuts the owner's
// hold in Redis back to what r knows of; either way r's later calls wait
// until then (or until their ctx ends), so that nothing r does meanwhile
// is undone. The acquire may also reach Redis after its undo (held up on
// a connection the client gave up on): the undo then marks it, and it
// does nothing when it comes (see the prelude's undone). When the undo
// gets no answer, r's calls go on, and the undo is asked again by attempt
// id in the background (see undoLater).
//
// An owner id that other values share (WithOwner) holds what r does not
// know of: then the acquire is undone by its attempt id. The hold lists
// the ids of its latest 16 acquires (':a:' in the prelude's layout), so
// the undo finds it even when acquires of other values came after it.
// r's later calls wait all the same. r.op held.
func (r *Holder) freeze(id string) func(undo bool) {
	// An earlier undo may still run: this one follows it.
	prev := r.settling.Load()
	ch := make(chan struct{})
	r.settling.Store(&ch)
	var token any = id
	count := int64(-1)
	if r.cfg.OwnOwner {
		token, count = int64(0), 0
		if h := r.Live(); h != nil {
			token, count = h.Token, h.Count
		}
	}
	return func(undo bool) {
		r.cfg.Client.Go(func() {
			if prev != nil {
				<-*prev
			}
			answered := !undo || r.undo(token, count, id, 0)
			r.settling.CompareAndSwap(&ch, nil)
			close(ch)
			if !answered {
				r.undoLater(id) // r's calls go on meanwhile
			}
		})
	}
}

// undo runs the Undo script for the hold r knows of (token and count), or
// for the acquire with attempt id token when count is -1, after the
// acquire with attempt id, and reports whether Redis answered (or never
// will: the go-redis client is closed). try counts the tries made before
// (see undoBudget).
func (r *Holder) undo(token any, count int64, id string, try int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), undoBudget(try, r.cfg.Client.Err() != nil))
	defer cancel()
	err := r.runUndo(ctx, token, count, id)
	// A go-redis client its user closed will never answer: nothing more
	// can be done from here.
	return err == nil || isServerError(err) || ClientClosed(err)
}

// undoLater asks Redis again to undo the acquire with attempt id, whose
// undo got no answer, pausing as settleLater does between tries, until
// Redis answers or the go-redis client is closed; once the Client is
// closed, undoClosedTries more times at most (Close waits for them). It
// undoes that acquire alone (by its attempt id, as for a shared owner
// id), so that it touches nothing r took since; if the acquire has not
// come yet, it marks it, and it does nothing when it comes. Without this,
// an acquire held up in the network while its undo failed would take the
// lock when it came, and keep it, unknown to anyone, for a whole lease.
func (r *Holder) undoLater(id string) {
	retryLater(r.cfg.Client, undoClosedTries, func(n int) bool { return r.undo(id, -1, id, n) })
}

// undoClosedTries is how many more times undoLater asks once the Client
// is closed: a give-back that failed at Close (the server was slow, or
// not answering for a moment) still frees the lock before its lease ends.
const undoClosedTries = 2

// undoBudget is how long an undo may take, after try tries that got no
// answer: CleanupTimeout, doubling with each try up to 8 times as much,
// so that a slow link (whose first try may cost two round trips, the
// EVAL after a NOSCRIPT) is given room; at least ClosedGrace once the
// Client is closed, the wait Close gives an acquire's give-back.
func undoBudget(try int, closed bool) time.Duration {
	d := CleanupTimeout << min(try, 3)
	if closed {
		d = max(d, ClosedGrace)
	}
	return d
}

// runUndo runs the Undo script that cuts the owner's hold back to token
// and count after the acquire with attempt id (see undo).
func (r *Holder) runUndo(ctx context.Context, token any, count int64, id string) error {
	argv := append([]any{r.hold, token, count, id}, r.spec.UndoArgs...)
	return r.spec.Undo.Run(ctx, r.cfg.Client.Redis(), r.spec.Keys, argv...).Err()
}
