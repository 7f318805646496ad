package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/watchdog"
)

// CleanupTimeout bounds how long a call waits, past the end of its ctx,
// for a clean-up: the undo of an acquire whose reply was lost, a release
// with a cancelled ctx, a fair waiter leaving its queue, a multi-lock
// giving back what a failed round took. Clean-ups run on a context
// detached from the caller's; one that the server does not answer in time
// goes on in the background (see Call), and if it fails, what it would
// have removed ends with its lease.
const CleanupTimeout = 500 * time.Millisecond

// ReleaseWindow is how long a released token is remembered, so that a
// retried Unlock whose first reply was lost reports success.
const ReleaseWindow = 10 * time.Second

// Spec is what a lock kind supplies for one of its holds: the scripts and
// the arguments they take beyond the standard ones. Every script gets the
// same KEYS. Standard ARGV:
//
//	Acquire  hold, lease ms, attempt id, AcquireArgs…, the Attempt's own args…
//	         → {count, token} when held; {0, wait ms} when refused (-1: no
//	           bound, -2: try again at once); {code < 0, _} for Refused
//	Release  hold, token, unlock id, ReleaseWindow ms, ReleaseArgs…
//	         → remaining count (0: the hold ended), -1 when not there
//	Renew    hold, token, lease ms → 1 renewed, 0 gone
//	Undo     hold, known token, known count, UndoArgs… → 1 undone, 0 not;
//	         a shared owner id's undo passes the attempt id and count -1
//
// The attempt id is new for every Attempt: an acquire that finds its own id
// recorded on the hold (':a:' in the prelude's layout) was re-sent by the
// client after a lost reply, and answers again without counting twice.
// Scripts that find the name used by another kind reply with an error
// starting "WRONGKIND" and change nothing.
type Spec struct {
	// Config is the lock value's configuration.
	Config *Config
	// Hold is the hold's id in Redis (the owner id, or it with a suffix).
	Hold string
	// Keys are the KEYS of every script.
	Keys []string

	Acquire, Release, Renew, Undo *redis.Script

	AcquireArgs, ReleaseArgs, UndoArgs []any

	// Late, if not nil, is called in the background when the reply of an
	// acquire whose caller gave up (its ctx ended first) comes, for what
	// the kind must tidy beyond the hold (a fair lock's queue entry).
	Late func()

	// Refused turns an acquire's negative code into the error to return;
	// nil when the kind has none.
	Refused func(code int64) error

	// Read marks the read side of an rwlock, in the events it reports;
	// Quiet makes a holder that reports none (a RedLock's node parts).
	Read, Quiet bool

	// Timed marks a holder whose caller times what it acquired itself (a
	// RedLock's node parts, whose validity the RedLock works out): a
	// fresh hold answered after its lease would have run out is recorded
	// as any other, not given back.
	Timed bool

	// Op serialises the owner's acquires and releases so that the holder
	// stays in step with Redis; holders of one owner (an rwlock's read and
	// write holds) share it. Nil gives the holder its own.
	Op *sync.Mutex
}

// Holder is one lock value's side of one hold: what it holds, and the
// protocol that acquires and releases it.
type Holder struct {
	spec Spec
	cfg  *Config
	op   *sync.Mutex
	tr   *Tracer

	// Slot is the current hold, lost or not. Its mutex also guards the
	// hold's Count.
	Slot

	// pending is a hold a newer one replaced while an Unlock of it had an
	// unknown outcome: the next Release settles that Unlock, and only it.
	// Guarded by op.
	pending *Hold
	// ownerUnlockID is the unlock id of a release by owner (see
	// releaseOwner) whose outcome is unknown; empty when none. Guarded by
	// op.
	ownerUnlockID string
	// settling is closed when an acquire in doubt is settled (see
	// freeze); nil when none is. Until then nothing may change what r
	// knows of its hold. Set with op held.
	settling atomic.Pointer[chan struct{}]
	// late is closed when the reply of the last acquire whose caller gave
	// up has come and been dealt with (see AwaitLate); nil before any.
	late atomic.Pointer[chan struct{}]
}

// NewHolder returns the holder of spec.
func NewHolder(spec Spec) *Holder {
	r := &Holder{spec: spec, cfg: spec.Config, op: spec.Op, tr: NewTracer(spec.Config, spec.Read, spec.Quiet)}
	if r.op == nil {
		r.op = new(sync.Mutex)
	}
	return r
}

// AwaitLate waits until the reply of the last acquire whose caller gave
// up (its ctx ended first) has come and been dealt with, or until ctx
// ends: a kind's clean-up after a failed Lock (a fair waiter leaving its
// queue) then runs after whatever that acquire did. The caller must not
// hold Op.
func (r *Holder) AwaitLate(ctx context.Context) {
	if p := r.late.Load(); p != nil {
		select {
		case <-*p:
		case <-ctx.Done():
		}
	}
}

// Tracer returns the tracer of r's events.
func (r *Holder) Tracer() *Tracer { return r.tr }

// lose marks h lost with cause and reports it, once.
func (r *Holder) lose(h *Hold, cause error) {
	if h.Lose(r.cfg.Name, cause) {
		r.tr.Lost(h)
	}
}

// Op returns the mutex that serialises the owner's calls.
func (r *Holder) Op() *sync.Mutex { return r.op }

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
	settling := r.settling.Load()
	r.op.Unlock()
	if settling != nil {
		// Return once the undo is done, if ctx allows: the lock is then
		// as the caller left it.
		select {
		case <-*settling:
		case <-ctx.Done():
		}
	}
	return ok, wait, err
}

// lock locks r.op once no acquire in doubt is being settled, or returns
// ctx's error when ctx ends first.
func (r *Holder) lock(ctx context.Context) error {
	for {
		r.op.Lock()
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
	argv := make([]any, 0, 3+len(r.spec.AcquireArgs)+len(args))
	id := newAttemptID()
	argv = append(argv, r.spec.Hold, ttl.Milliseconds(), id)
	argv = append(argv, r.spec.AcquireArgs...)
	argv = append(argv, args...)
	sent := time.Now()
	// An acquire left behind when ctx ends freezes what r knows of its
	// hold until its reply comes and whatever it took is undone.
	var once sync.Once
	var settle func(undo bool)
	var lateDone chan struct{} // closed once the late reply is dealt with
	frozen := func() func(bool) {
		once.Do(func() {
			settle = r.freeze(id)
			lateDone = make(chan struct{})
			r.late.Store(&lateDone)
		})
		return settle
	}
	res, err := Call(ctx, c.Client, func(ctx context.Context) ([]int64, error) {
		res, err := r.spec.Acquire.Run(ctx, c.Client.Redis(), r.spec.Keys, argv...).Int64Slice()
		if err == nil && len(res) != 2 {
			err = fmt.Errorf("%w: %v", ErrReply, res)
		}
		return res, err
	}, func(res []int64, err error) {
		frozen()(err != nil && !isServerError(err) || err == nil && res[0] > 0)
		if r.spec.Late != nil {
			r.spec.Late()
		}
		close(lateDone)
	})
	if err != nil || res[0] <= 0 {
		abort(pre)
	}
	switch {
	case errors.Is(err, errNoReply):
		frozen() // its reply settles it
		return false, 0, Op(op, c.Name, err)
	case errors.Is(err, errNotSent) || isServerError(err):
		return false, 0, Op(op, c.Name, err)
	case err != nil:
		// The reply was lost: the acquire may have run.
		r.freeze(id)(true)
		return false, 0, Op(op, c.Name, err)
	case res[0] < 0:
		if r.spec.Refused == nil {
			return false, 0, Op(op, c.Name, fmt.Errorf("%w: %v", ErrReply, res))
		}
		return false, 0, r.spec.Refused(res[0])
	case res[0] == 0:
		return false, pttlWait(res[1]), nil
	}
	if res[0] == 1 {
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

// isServerError reports whether err is an error reply from Redis: the
// script ran and failed, and changed nothing.
func isServerError(err error) bool {
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
	if r.cfg.Watched() {
		lease.Script = r.spec.Renew
		lease.MaxHold = r.cfg.MaxHold
		lease.Keys = r.spec.Keys
		lease.Args = []any{r.spec.Hold, token, r.cfg.TTL().Milliseconds()}
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
// is undone. If the undo fails, the stray hold ends with its lease.
//
// An owner id that other values share (WithOwner) holds what r does not
// know of: then nothing is frozen, and the acquire is undone by its
// attempt id, if it is still the hold's last acquire. r.op held.
func (r *Holder) freeze(id string) func(undo bool) {
	if !r.cfg.OwnOwner {
		return func(undo bool) {
			if undo {
				r.cfg.Client.Go(func() { r.undo(id, -1) })
			}
		}
	}
	// An earlier undo may still run: this one follows it.
	prev := r.settling.Load()
	ch := make(chan struct{})
	r.settling.Store(&ch)
	var token, count int64
	if h := r.Live(); h != nil {
		token, count = h.Token, h.Count
	}
	return func(undo bool) {
		r.cfg.Client.Go(func() {
			defer func() {
				r.settling.CompareAndSwap(&ch, nil)
				close(ch)
			}()
			if prev != nil {
				<-*prev
			}
			if undo {
				r.undo(token, count)
			}
		})
	}
}

// undo runs the Undo script for the hold r knows of (token and count), or
// for the acquire with attempt id token when count is -1.
func (r *Holder) undo(token any, count int64) {
	ctx, cancel := Detached(context.Background())
	defer cancel()
	argv := append([]any{r.spec.Hold, token, count}, r.spec.UndoArgs...)
	_ = r.spec.Undo.Run(ctx, r.cfg.Client.Redis(), r.spec.Keys, argv...).Err()
}

// Detached returns a context that is not cancelled with ctx, bounded by
// CleanupTimeout, for clean-ups that must run after ctx ended.
func Detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
}

// Release undoes one acquire of the current hold. It returns ErrNotHeld
// when nothing is held and ErrLost when the hold is lost or gone; a lost
// hold is still released, if its key lingers, for the waiters' sake (the
// token fences this). When ctx has ended already, the release still runs,
// on a detached ctx bounded by CleanupTimeout, so that a cancelled request
// never leaves its lock held. After a Redis error the outcome is unknown:
// the hold keeps its unlock id, so the next Release asks again without
// releasing twice.
func (r *Holder) Release(ctx context.Context, op string) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = Detached(ctx)
		defer cancel()
	}
	if err := r.lock(ctx); err != nil {
		return Op(op, r.cfg.Name, err)
	}
	defer r.op.Unlock()
	if p := r.pending; p != nil {
		// This Release is the retry of the Unlock in doubt.
		n, err := r.release(ctx, p)
		if err != nil {
			return Op(op, r.cfg.Name, err)
		}
		r.pending = nil
		if n < 0 {
			r.lose(p, nil)
			r.tr.Released(p, true, p.Err())
			return p.Err()
		}
		r.tr.Released(p, true, nil)
		return nil
	}
	h := r.Current()
	if h == nil {
		if err := r.cfg.Client.Err(); err != nil {
			return Op(op, r.cfg.Name, err)
		}
		if r.cfg.OwnOwner {
			return NotHeld(r.cfg.Name)
		}
		return r.releaseOwner(ctx, op)
	}
	if h.unlockID == "" {
		h.unlockID = newUnlockID()
	}
	if h.Err() != nil {
		// A fixed lease ends by our clock a little before the server's.
		_, _ = r.release(ctx, h)
		r.tr.Released(h, true, h.Err())
		return r.forget(h)
	}
	h.wh.Suspend()
	n, err := r.release(ctx, h)
	h.unlocking.Store(err != nil)
	switch {
	case err != nil:
		h.wh.Resume()
		return Op(op, r.cfg.Name, err)
	case n < 0:
		r.lose(h, nil)
		r.tr.Released(h, true, h.Err())
		return r.forget(h)
	case n == 0:
		r.end(h)
		r.tr.Released(h, true, nil)
	default:
		// Still held: by this holder's other acquires, or by another value
		// sharing the owner id once this one's are all undone.
		h.unlockID = ""
		if h.Count--; h.Count > 0 {
			h.wh.Resume()
			r.tr.Released(h, false, nil)
		} else {
			r.end(h)
			r.tr.Released(h, true, nil)
		}
	}
	return nil
}

func (r *Holder) release(ctx context.Context, h *Hold) (int64, error) {
	return r.run(ctx, h.Token, h.unlockID)
}

// run runs the release script for the hold with token ("" for the owner's
// current hold) under unlock id.
func (r *Holder) run(ctx context.Context, token any, id string) (int64, error) {
	argv := append([]any{r.spec.Hold, token, id, ReleaseWindow.Milliseconds()}, r.spec.ReleaseArgs...)
	// A release left behind is in doubt like one whose reply was lost:
	// its unlock id makes the retry safe.
	return Call(ctx, r.cfg.Client, func(ctx context.Context) (int64, error) {
		return r.spec.Release.Run(ctx, r.cfg.Client.Redis(), r.spec.Keys, argv...).Int64()
	}, nil)
}

// releaseOwner undoes one acquire of the owner's hold when this value
// holds nothing itself: with a shared owner id (WithOwner), another value
// or process may have taken it, and any value of the owner may release it.
// The release names no token, only the owner. Its unlock id outlives an
// error, so that the next call retries it without releasing twice. r.op
// held.
func (r *Holder) releaseOwner(ctx context.Context, op string) error {
	if r.ownerUnlockID == "" {
		r.ownerUnlockID = newUnlockID()
	}
	n, err := r.run(ctx, "", r.ownerUnlockID)
	if err != nil {
		return Op(op, r.cfg.Name, err)
	}
	r.ownerUnlockID = ""
	if n < 0 {
		return NotHeld(r.cfg.Name)
	}
	return nil
}

// Suspended runs force, which removes holds whoever owns them, with the
// renewal of the current hold (if any) suspended: the hold ends when force
// succeeds and is renewed again when it fails. The caller holds Op.
func (r *Holder) Suspended(force func() error) error {
	h := r.Current()
	if h != nil {
		h.wh.Suspend()
	}
	err := force()
	switch {
	case h == nil:
	case err != nil:
		h.wh.Resume()
	default:
		r.end(h)
	}
	return err
}

// end drops h after the release that ended it.
func (r *Holder) end(h *Hold) {
	r.stop(h)
	r.clear(h)
	h.End()
}

// forget drops h, already lost, and returns its error.
func (r *Holder) forget(h *Hold) error {
	r.end(h)
	return h.Err()
}

func (r *Holder) stop(h *Hold) {
	if h.wh != nil {
		h.wh.Stop()
	}
}

func (r *Holder) clear(h *Hold) {
	r.Slot.mu.Lock()
	if r.Slot.h == h {
		r.Slot.h = nil
	}
	r.Slot.mu.Unlock()
}
