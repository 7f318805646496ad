package election

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/reentrant"
)

// Election is one candidate in the leader election name: a lock whose
// holder leads. Values with the same name (and prefix) take part in one
// election, in one process or many; each value is one candidate, which
// campaigns once at a time.
//
// An Election is safe for concurrent use. Use it through the pointer New
// returns; a zero Election is not usable (its methods return
// [lockkit.ErrInvalid]).
type Election struct {
	b core.Base
	m *reentrant.Mutex // the leadership: a hash lock of kind 'election'

	mu   sync.Mutex
	busy bool // a Campaign is under way, or its Leadership not resigned; guarded by mu
	// doubt is set while the give-back of a failed Campaign whose outcome
	// was unknown is not settled (see settle). Touched only while busy.
	doubt bool
}

// New returns a candidate in the election name of client c. opts are the
// lock options of the leadership: [lockkit.WithWatchdogTimeout] (how soon
// a dead leader is replaced; default 30 s), [lockkit.WithLease] (a
// leadership that ends by itself), [lockkit.WithMaxHold],
// [lockkit.WithPrefix], [lockkit.WithTrace] and
// [lockkit.WithHolderInfo]. New does no I/O and cannot fail: invalid
// arguments make every method return an error matching
// [lockkit.ErrInvalid].
func New(c *lockkit.Client, name string, opts ...lockkit.Option) *Election {
	e := &Election{b: core.NewBase(c, config.Election, name, opts)}
	if e.b.Err == nil {
		e.m = reentrant.New(c, name, append([]lockkit.Option{electionKind}, opts...)...)
	}
	return e
}

// electionKind makes the reentrant lock being made an election's, whose
// scripts that free it tell the observers, in the same script, that
// nobody leads.
func electionKind(o *config.Options) {
	o.Kind = config.Election
	o.Vacancy = observersChan
}

// Campaign blocks until e leads the election, or ctx ends, and returns its
// leadership: it takes the leadership lock (waiting as a reentrant lock
// does, woken by pub/sub when the leader resigns or at the end of a dead
// leader's lease), proclaims value beside its hold and tells the
// observers. The leadership lasts, renewed by the watchdog, until
// [Leadership.Resign] or until it is lost; its [Leadership.Context] ends
// then. ctx bounds only the campaign: cancelling it later does not end
// the leadership. When the lock taken is lost before value is proclaimed
// (a failover to a replica the hold had not reached, a restart that lost
// it), nobody has heard of e as leader: Campaign gives back what is left
// and campaigns again, while ctx lasts.
//
// When ctx ends first, the error matches both [lockkit.ErrNotObtained] and
// ctx.Err(), and e holds nothing: when ctx ends after the leadership lock
// was taken but before value was proclaimed, Campaign gives the lock back
// before it returns (a leader nobody knows of would keep the others out),
// on a detached context, and so returns up to 500 ms past the deadline
// against a server that stopped answering. If the give-back fails, the
// error says so too, and the lock is given back in the background, as a
// failed Unlock is (asking again 20 ms apart, doubling to 2 s, until the
// server answers or the Client closes); the next Campaign waits for it,
// while ctx lasts. When the proclamation's reply
// was lost, the observers may have heard of e as leader: the give-back
// tells them that nobody leads, in the same script, as Resign does. A
// candidate campaigns once at a time: Campaign while e campaigns or leads
// (Resign was not called) returns an error matching [lockkit.ErrInvalid].
// A name held by a lock of another kind is [lockkit.ErrWrongKind].
//
// When the Client is closed while Campaign waits, or while its acquire or
// its proclamation is on its way, Campaign returns an error matching
// [lockkit.ErrClosed] and gives back what it took before it returns,
// telling the observers (if Close comes at the very moment the
// proclamation's reply does, it may instead return the leadership,
// reported lost by then: Resign it as usual).
func (e *Election) Campaign(ctx context.Context, value string) (*Leadership, error) {
	if err := e.base().Check(ctx); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.busy {
		e.mu.Unlock()
		return nil, core.Invalid("election %q: the candidate already campaigns or leads; Resign first, or campaign with another Election", e.b.Cfg.Name)
	}
	e.busy = true
	e.mu.Unlock()
	var (
		l   *Leadership
		err error
	)
	for again := true; again; {
		again = false
		if err = e.settle(ctx); err == nil {
			l, again, err = e.campaign(ctx, value)
		}
	}
	if err != nil {
		e.idle()
	}
	return l, err
}

// settle settles the give-back in doubt of an earlier Campaign, if any.
// The leadership lock settles it in the background (a failed last Unlock
// is), and its next Unlock returns the outcome, and only it: a leadership
// taken before that Unlock would outlive its Resign. So settle calls
// Unlock, again every core.ReadRetry while the server does not answer,
// until ctx ends.
func (e *Election) settle(ctx context.Context) error {
	for e.doubt {
		err := e.m.Unlock(ctx)
		if !core.InDoubt(err) {
			e.doubt = false
			return nil
		}
		t := time.NewTimer(core.ReadRetry)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return core.CtxError(ctx, e.b.Cfg.Name, ctx.Err())
		}
	}
	return nil
}

// campaign takes the lock and proclaims value; on failure it gives the
// lock back. When the hold was gone by the time value was to be
// proclaimed (a failover to a replica it had not reached, a restart that
// lost it, a stall past its lease), it gives back what is left of it and
// reports that the campaign should start again: nobody was told of e,
// and the candidate still wants to lead.
func (e *Election) campaign(ctx context.Context, value string) (_ *Leadership, again bool, _ error) {
	cfg := &e.b.Cfg
	if err := e.m.Lock(ctx); err != nil {
		return nil, false, err
	}
	term := e.m.Token()
	lctx := e.m.Context(context.WithoutCancel(ctx))
	n, err := core.Call(ctx, cfg.Client, func(ctx context.Context) (int64, error) {
		return proclaimScript.Run(ctx, cfg.Client.Redis(), []string{cfg.Keys.Base},
			term, value, e.observers(), config.Election).Int64()
	}, nil)
	if err == nil {
		// A Client closed while the campaign was on its way reported the
		// hold lost: give it back, as Lock gives back an acquire that was
		// on its way then.
		err = cfg.Client.Err()
	}
	if err == nil && n == 1 {
		l := &Leadership{e: e, leader: Leader{Value: value, Term: term}}
		l.ctx, l.resign = context.WithCancelCause(lctx)
		return l, false, nil
	}
	again = err == nil
	if err != nil {
		err = core.CtxError(ctx, cfg.Name, core.Op("campaign", cfg.Name, err))
	}
	// Give the lock back (on a detached ctx when ctx has ended): a leader
	// nobody knows of would keep the others out. A proclamation whose
	// reply did not come may have told the observers of e: the give-back
	// tells them that nobody leads, as Resign does.
	uerr := e.m.Unlock(ctx)
	if core.InDoubt(uerr) {
		err = errors.Join(err, uerr)
		e.doubt = true
	}
	if again {
		err = nil // settle, at the start of the next campaign, waits for a give-back in doubt
	}
	return nil, again, err
}

// idle lets e campaign again.
func (e *Election) idle() {
	e.mu.Lock()
	e.busy = false
	e.mu.Unlock()
}

// observersChan is the part of the observers' channel, PREFIX:{NAME}:observe.
const observersChan = "observe"

// observers returns the channel on which changes of leader are published.
func (e *Election) observers() string { return e.b.Cfg.Keys.Chan(observersChan) }

// Name returns the election's name.
func (e *Election) Name() string { return e.base().Name() }

// base returns e's Base, or nil for a nil e.
func (e *Election) base() *core.Base {
	if e == nil {
		return nil
	}
	return &e.b
}
