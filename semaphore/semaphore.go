package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// MaxPermits is the largest number of permits a semaphore accepts.
const MaxPermits = 1 << 20

// Semaphore is a counting semaphore on Redis whose permits have leases:
// at most a given number of permits are held at once, by any goroutines
// and processes, and each hold is kept alive by the Client's watchdog and
// freed by itself when its holder dies. Values with the same name (and
// prefix) are one semaphore.
//
// A Semaphore is safe for concurrent use. Use it through the pointer New
// returns; a zero Semaphore is not usable (its methods return
// [lockkit.ErrInvalid]).
type Semaphore struct {
	b       core.Base
	permits int
	keys    []string // the KEYS of every script but renew.lua
	chans   string   // prefix of the waiters' own channels, PREFIX:{NAME}:ch:
	// renew are the KEYS of renew.lua: the hash and the leases, which a
	// live hold keeps (see core.Spec's RenewKeys).
	renew []string
}

// New returns the semaphore name of client c, with permits permits unless
// [Semaphore.SetPermits] set another number. Every value of one semaphore
// should be given the same permits. New does no I/O and cannot fail:
// invalid arguments (a nil client, an empty name, permits below 1 or
// above [MaxPermits], a bad option) make every method return an error
// matching [lockkit.ErrInvalid]. It takes the options of leases
// ([lockkit.WithLease], [lockkit.WithWatchdogTimeout],
// [lockkit.WithMaxHold]), [lockkit.WithPrefix] and [lockkit.WithTrace].
func New(c *lockkit.Client, name string, permits int, opts ...lockkit.Option) *Semaphore {
	s := &Semaphore{b: core.NewBase(c, config.Semaphore, name, opts), permits: permits}
	if s.b.Err == nil && (permits < 1 || permits > MaxPermits) {
		s.b.Err = core.Invalid("semaphore %q: permits must be between 1 and %d, got %d", name, MaxPermits, permits)
	}
	k := s.b.Cfg.Keys
	s.chans = k.Chan("ch") + ":"
	s.keys = []string{k.Base, k.Fence, k.Released, k.Sub("leases"), k.Sub("waiters"), k.Sub("timeouts"), k.Sub("permits")}
	s.renew = []string{k.Base, k.Sub("leases")}
	return s
}

// check returns the error of a call for n permits before anything is sent.
func (s *Semaphore) check(ctx context.Context, n int) error {
	if err := s.base().Check(ctx); err != nil {
		return err
	}
	if n < 1 || n > s.permits {
		return core.Invalid("semaphore %q: n must be between 1 and %d (the permits given to New), got %d", s.b.Cfg.Name, s.permits, n)
	}
	return nil
}

// Acquire takes n permits and returns them as one hold, blocking until
// they are free and every caller that started waiting earlier, in any
// process, has been served, or until ctx ends. The hold's lease is
// renewed by the Client's watchdog until it is released (or for the
// fixed lease of [lockkit.WithLease]); when its process dies, its permits
// are freed once the lease runs out.
//
// Acquire first tries once; refused, it joins the semaphore's queue in
// Redis, subscribes to a channel of its own, tries again and sleeps until
// a release (or a lease that ends, or a waiter ahead that gives up) leaves
// enough permits free for it and those ahead of it: only then is it
// woken, and no other waiter. While it waits it renews its place every
// third of the waiter timeout (5 s); a waiter whose process died is
// dropped from the queue once that runs out, and so is every waiter's
// place when the server stalls for longer than that (the waiters queue
// again, in the order their attempts reach it after the stall).
//
// When ctx ends first, Acquire returns then, with an error matching both
// [lockkit.ErrNotObtained] and ctx.Err(). A failed Acquire leaves nothing
// behind: an attempt whose reply was lost is undone and the place in the
// queue is given up before Acquire returns (in the background if the
// server does not answer within 100 ms; if Redis cannot be reached, the
// place lapses after the waiter timeout and a permit taken unknowingly
// after its lease). n must be between 1 and the permits given to New
// ([lockkit.ErrInvalid]). A name held by a lock of another kind is
// [lockkit.ErrWrongKind].
func (s *Semaphore) Acquire(ctx context.Context, n int) (*Permits, error) {
	if err := s.check(ctx, n); err != nil {
		return nil, err
	}
	p := s.newPermits(n)
	cfg := &s.b.Cfg
	w := core.Queue{Notifier: cfg.Client.Notifier(), Channel: s.chans + p.id, Heartbeat: cfg.WaiterTimeout / 3}
	err := core.Wait(ctx, p.h.Tracer(), cfg.Name, w, func(ctx context.Context, _ ...any) (bool, time.Duration, error) {
		return p.h.Attempt(ctx, "acquire", joinQueue)
	})
	if err != nil {
		return nil, s.leave(ctx, p, err)
	}
	p.hold = p.h.Current()
	return p, nil
}

// TryAcquire takes n permits if they are free now and nobody waits ahead,
// without waiting and without joining the queue. It returns nil and a nil
// error when the permits are not free, and also when the server answered
// too late to keep the permits it took (it stalled for longer than the
// lease, so another may have them already): they are given back before
// TryAcquire returns, where Acquire would try again. Its errors are those
// of Acquire.
func (s *Semaphore) TryAcquire(ctx context.Context, n int) (*Permits, error) {
	if err := s.check(ctx, n); err != nil {
		return nil, err
	}
	p := s.newPermits(n)
	ok, _, err := p.h.Attempt(ctx, "acquire", tryOnly)
	if err != nil || !ok {
		return nil, core.CtxError(ctx, s.b.Cfg.Name, err)
	}
	p.hold = p.h.Current()
	return p, nil
}

// leave ends a wait for p that failed with cause, and returns the error
// Acquire returns: cause, joined with the clean-up's own failure if any.
// The clean-up takes p's entry out of the queue (leave.lua), once an
// attempt still on its way has come back (else the attempt's late reply
// leaves again), in the background if the server takes longer than
// core.CleanupGrace (see core.Cleanup), so that Acquire returns about by
// its deadline even when the server is silent.
func (s *Semaphore) leave(ctx context.Context, p *Permits, cause error) error {
	err := core.Cleanup(ctx, s.b.Cfg.Client, func(ctx context.Context) error {
		p.h.AwaitLate(ctx)
		return s.leaveQueue(ctx, p)
	})
	if err != nil {
		return errors.Join(cause, core.Op("leave queue", s.b.Cfg.Name, err))
	}
	return cause
}

// leaveQueue runs leave.lua for p.
func (s *Semaphore) leaveQueue(ctx context.Context, p *Permits) error {
	cfg := &s.b.Cfg
	_, err := core.Call(ctx, cfg.Client, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, leaveScript.Run(ctx, cfg.Client.Redis(), s.keys, p.member(), s.permits, s.chans).Err()
	}, nil)
	return err
}

// Release frees the permits of p; it is p.Release(ctx).
func (s *Semaphore) Release(ctx context.Context, p *Permits) error {
	if err := s.base().CheckInput(ctx); err != nil {
		return err
	}
	return p.Release(ctx)
}

// SetPermits sets the number of permits of the semaphore, for every value
// and process, to n (between 1 and [MaxPermits]). When it grows, the
// waiters the new permits serve are woken. When it shrinks below the
// permits held, no hold is revoked: the holders keep their permits until
// they release them or their leases end, and no Acquire succeeds until
// fewer than n permits are held ([Semaphore.Available] reports 0
// meanwhile). A waiter for more permits than the new number waits until
// it grows again (or its ctx ends), and the waiters behind it wait too:
// nobody passes it. The number is kept in Redis for 24 hours after the last
// hold taken or the last SetPermits; then the number given to New
// applies again.
func (s *Semaphore) SetPermits(ctx context.Context, n int) error {
	if err := s.base().Check(ctx); err != nil {
		return err
	}
	if n < 1 || n > MaxPermits {
		return core.Invalid("semaphore %q: permits must be between 1 and %d, got %d", s.b.Cfg.Name, MaxPermits, n)
	}
	cfg := &s.b.Cfg
	_, err := core.Call(ctx, cfg.Client, func(ctx context.Context) (int64, error) {
		return permitsScript.Run(ctx, cfg.Client.Redis(), s.keys, n, cfg.Expiry.Milliseconds(), s.permits, s.chans).Int64()
	}, nil)
	if err != nil {
		return core.Op("set permits", cfg.Name, err)
	}
	return nil
}

// Holder is one hold of a semaphore's permits, as [Semaphore.Holders]
// reports it.
type Holder struct {
	// ID is the hold's id; its permits are ID/1 … ID/Permits.
	ID string
	// Permits is how many permits it holds.
	Permits int
	// Token is its fencing token.
	Token int64
	// TTL is what is left of its lease.
	TTL time.Duration
}

// Available returns how many permits are free: not held, out of the
// number of permits (0 while more are held than a number that shrank).
// Holds whose lease ended are freed first.
func (s *Semaphore) Available(ctx context.Context) (int, error) {
	_, free, _, err := s.state(ctx, "available")
	return max(free, 0), err
}

// Holders returns the semaphore's holds, in the order their leases end.
// Holds whose lease ended are freed first.
func (s *Semaphore) Holders(ctx context.Context) ([]Holder, error) {
	_, _, hs, err := s.state(ctx, "holders")
	return hs, err
}

// Permits returns the semaphore's number of permits: the one set by
// [Semaphore.SetPermits], or the one given to New.
func (s *Semaphore) Permits(ctx context.Context) (int, error) {
	n, _, _, err := s.state(ctx, "permits")
	return n, err
}

// state runs state.lua; op names the operation in errors.
func (s *Semaphore) state(ctx context.Context, op string) (permits, free int, holders []Holder, err error) {
	if err := s.base().Check(ctx); err != nil {
		return 0, 0, nil, err
	}
	cfg := &s.b.Cfg
	res, err := core.Call(ctx, cfg.Client, func(ctx context.Context) ([]any, error) {
		return stateScript.Run(ctx, cfg.Client.Redis(), s.keys, s.permits, s.chans).Slice()
	}, nil)
	if err != nil {
		return 0, 0, nil, core.Op(op, cfg.Name, err)
	}
	if len(res) < 2 || len(res)%4 != 2 {
		return 0, 0, nil, core.Op(op, cfg.Name, fmt.Errorf("%w: %v", core.ErrReply, res))
	}
	permits, free = int(toInt(res[0])), int(toInt(res[1]))
	for i := 2; i < len(res); i += 4 {
		id, _ := res[i].(string)
		holders = append(holders, Holder{
			ID:      id,
			Permits: int(toInt(res[i+1])),
			Token:   toInt(res[i+2]),
			TTL:     time.Duration(toInt(res[i+3])) * time.Millisecond,
		})
	}
	return permits, free, holders, nil
}

// toInt reads an integer reply, or a decimal string; 0 for anything else.
func toInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// Name returns the semaphore's name.
func (s *Semaphore) Name() string { return s.base().Name() }

// base returns s's Base, or nil for a nil s.
func (s *Semaphore) base() *core.Base {
	if s == nil {
		return nil
	}
	return &s.b
}
