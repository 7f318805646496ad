package notify

import (
	"container/list"
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Messages published on a lock's channel.
const (
	// WakeOne wakes the first waiter of each process.
	WakeOne = "1"
	// WakeAll wakes every waiter.
	WakeAll = "*"
	// Standby, followed by a time in ms ("s100"), tells a process that it
	// is next in line, or among the next: a release woke another process,
	// for which the free lock is kept for a while, and the processes ahead
	// of this one have had their turn once that time has passed. The head
	// of its FIFO then tries again, unless woken first, so that a woken
	// process that never takes its turn (stopped, or cut off while the
	// server still counts its connection) holds the others up no longer
	// than its keep.
	Standby = "s"
)

// standbyMargin is how long past a [Standby] message's time its head
// tries: by then the server has let the kept lock go.
const standbyMargin = 10 * time.Millisecond

// linger is how long a confirmed channel stays subscribed after its last
// waiter left, so that a Lock that soon follows (a worker locking in a
// loop, a fair lock's next turn) does not SUBSCRIBE and UNSUBSCRIBE again.
const linger = 100 * time.Millisecond

// DefaultHealthCheck is how long an idle connection goes before the
// notifier pings it (see [HealthCheck]).
const DefaultHealthCheck = 2 * time.Second

// ErrClosed is returned by Subscribe, Wait and WaitTurn once the Notifier
// is closed.
var ErrClosed = errors.New("notify: closed")

// New returns a Notifier that subscribes through client. It does no I/O:
// its one PubSub connection and the goroutine receiving from it start with
// the first subscription and stop a short linger (100 ms) after the last
// channel is left. Close stops it for good. A nil Option is ignored.
func New(client redis.UniversalClient, opts ...Option) *Notifier {
	n := &Notifier{client: client, id: rand.Text(), channels: map[string]*channel{}, conns: map[string]*conn{}, closed: make(chan struct{}), health: DefaultHealthCheck}
	for _, opt := range opts {
		if opt != nil {
			opt(n)
		}
	}
	return n
}

// Option configures a Notifier.
type Option func(*Notifier)

// HealthCheck sets how long the connection may stay silent before the
// notifier pings it. A ping that gets no reply within another d marks the
// connection dead (a dropped NAT entry or a black-holed route can leave a
// connection open that carries nothing): the notifier replaces it,
// subscribes every channel again, and wakes every waiter to re-check. A
// dead connection is so replaced within 2d, and its waiters woken at
// once, whatever else waits on the server. Each request the notifier
// sends for a PubSub connection is also given 2d: go-redis opens a broken
// connection anew inside such a request, retrying as its client is set
// to, and a client set to retry long would hold it for a minute or more.
// (go-redis ends on that deadline its retries and dials, and its reads
// too with ContextTimeoutEnabled; without it a read waits up to the
// client's ReadTimeout.) A d that is not positive is ignored: the default
// stays. Default: 2 s ([DefaultHealthCheck]).
func HealthCheck(d time.Duration) Option {
	return func(n *Notifier) {
		if d > 0 {
			n.health = d
		}
	}
}

// OnDisconnect sets a function called, from the receiving goroutine, each
// time the PubSub connection breaks (and again at each failed attempt to
// open a new one while the server cannot be reached, 10 ms apart doubling
// up to 1 s): the server may have restarted or failed over, and lost what
// it held. Its argument says why: the connection's error, a health check
// that got no reply, or the master of its channels' slots changed on a
// Cluster. It must not block. Default: none.
func OnDisconnect(f func(err error)) Option {
	return func(n *Notifier) { n.onDisconnect = f }
}

// Notifier multiplexes channels over one PubSub connection, with a FIFO of
// local waiters per channel. Create it with [New]; it is safe for
// concurrent use.
type Notifier struct {
	client       redis.UniversalClient
	id           string        // see ID
	onDisconnect func(error)   // see OnDisconnect; nil for none
	health       time.Duration // see HealthCheck
	closed       chan struct{} // closed by Close
	closeOnce    sync.Once
	bg           sync.WaitGroup // the subscribes and unsubscribes sent from goroutines

	// subMu serialises SUBSCRIBE and UNSUBSCRIBE writes and the life of ps,
	// so that an unsubscribe can never overtake a later subscribe.
	subMu sync.Mutex

	// sharding is whether the server has sharded pub/sub: 0 not known
	// yet, 1 yes, -1 no (see route). Guarded by subMu.
	sharding int

	mu       sync.Mutex          // guards the fields below
	channels map[string]*channel // by channel name
	// conns are the PubSub connections, by key (see route); a connection
	// is opened with its first channel and closed with its last, and
	// written under subMu and mu.
	conns map[string]*conn
}

type channel struct {
	name      string
	refs      int           // waiters that joined and have not left
	confirmed bool          // Redis confirmed the subscription
	ready     chan struct{} // closed when confirmed
	failed    chan struct{} // closed when the subscribe could not be sent (see fail)
	err       error         // why, once failed is closed
	waiters   list.List     // of *Waiter, in arrival order
	// deadline is when the lock may be free without a message (its
	// holder's lease runs out); zero when unknown or never.
	deadline time.Time
	// standby is the time the last Standby message said to try at, until
	// a wake-up comes: no attempt's reply pushes deadline past it (see
	// SetDeadline).
	standby  time.Time
	sleeping int         // waiters blocked in Wait or WaitTurn
	idle     *time.Timer // while refs is 0: ends the linger (see linger)
	passOn   func()      // see PassOn; nil for none
	conn     *conn       // the connection it is subscribed on; nil until the subscribe is sent
}

// Waiter is one goroutine's place in a channel's FIFO. It is not safe for
// concurrent use: one goroutine subscribes, waits and leaves.
type Waiter struct {
	n      *Notifier
	ch     *channel
	elem   *list.Element
	signal chan struct{} // holds at most one pending wake-up
	rearm  chan struct{} // pokes a sleeping waiter to look at its timer again
	woken  bool          // the last Wait returned because of a wake-up
	left   bool          // guarded by n.mu
}

// ID returns the notifier's id: random, fixed for its life, and unique in
// practice. A waker that addresses one process rather than every
// subscriber of a lock's channel publishes on a channel that ends with it.
func (n *Notifier) ID() string { return n.id }

// A SubscribeOption configures a channel at [Notifier.Subscribe].
type SubscribeOption func(*channel)

// PassOn sets the function called, in a goroutine of the notifier, when a
// [WakeOne] on the channel is not taken: it arrives while the channel has
// no waiter (they all left), or the last waiter leaves holding a wake-up
// it did not use. A waker that hands its turns to one process at a time
// uses it to hand the turn to another, so that it is never lost. It is not
// called once the notifier is closed. The latest Subscribe's PassOn wins.
func PassOn(f func()) SubscribeOption {
	return func(ch *channel) { ch.passOn = f }
}

// Subscribe joins the FIFO of waiters on channel and returns once Redis has
// confirmed the subscription, so a message published after Subscribe
// returns will reach the waiter. The caller must call [Waiter.Leave]. A
// nil SubscribeOption is ignored.
//
// If ctx ends first, Subscribe leaves and returns ctx.Err(); a ctx that
// has ended already fails at once, even on a channel subscribed already.
// If the subscribe cannot be sent (no connection to the server can be
// opened), Subscribe leaves and returns that error, as does every other
// Subscribe waiting for that subscribe; a later Subscribe tries again.
// Once the Notifier is closed it returns [ErrClosed].
func (n *Notifier) Subscribe(ctx context.Context, channelName string, opts ...SubscribeOption) (*Waiter, error) {
	if n.isClosed() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	if n.isClosed() {
		// Close has begun: it may be waiting for bg already.
		n.mu.Unlock()
		return nil, ErrClosed
	}
	ch := n.channels[channelName]
	first := ch == nil
	if first {
		n.bg.Add(1) // the subscribe below
		ch = &channel{name: channelName, ready: make(chan struct{}), failed: make(chan struct{})}
		n.channels[channelName] = ch
	}
	if ch.refs == 0 && ch.idle != nil {
		// Back within the linger: still subscribed. If the timer fired
		// already, it finds refs above 0 and keeps the channel.
		ch.idle.Stop()
		ch.idle = nil
	}
	for _, opt := range opts {
		if opt != nil {
			opt(ch)
		}
	}
	ch.refs++
	w := &Waiter{n: n, ch: ch, signal: make(chan struct{}, 1), rearm: make(chan struct{}, 1)}
	w.elem = ch.waiters.PushBack(w)
	n.mu.Unlock()

	// The first waiter sends SUBSCRIBE, from a goroutine of its own, so
	// that a connection being opened to a server that does not answer
	// (go-redis waits for its dial and read timeouts) does not hold the
	// caller past ctx. An abandoned subscribe completes in the background
	// (or fails after two health intervals, see bounded); the channel's
	// linger then unsubscribes it. One that cannot be sent fails the
	// waiters still waiting for it, whoever sent it.
	if first {
		go func() {
			defer n.bg.Done()
			ctx, cancel := n.bounded(context.WithoutCancel(ctx))
			defer cancel()
			if err := n.subscribe(ctx, ch); err != nil {
				n.fail(ch, err)
			}
		}()
	}
	select {
	case <-ch.failed:
		w.Leave(false)
		return nil, ch.err
	case <-ch.ready:
		return w, nil
	case <-ctx.Done():
		w.Leave(false)
		return nil, ctx.Err()
	case <-n.closed:
		w.Leave(false)
		return nil, ErrClosed
	}
}

// fail ends with err the Subscribe of every waiter of ch, whose subscribe
// could not be sent, unless Redis confirmed it meanwhile or it failed
// already, and forgets ch, so that a later Subscribe to its channel sends
// the subscribe anew.
func (n *Notifier) fail(ch *channel, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch.confirmed || ch.err != nil {
		return
	}
	ch.err = err
	close(ch.failed)
	if n.channels[ch.name] == ch {
		delete(n.channels, ch.name)
	}
}

// Close unsubscribes every channel, closes the PubSub connections and
// waits for their goroutines. Waiters blocked in Wait or WaitTurn return
// [ErrClosed], and so does every later Subscribe. A subscribe on its way
// holds Close up until go-redis gives it up: against a server that does
// not answer, its read timeout. Close is idempotent and does not close
// the client.
func (n *Notifier) Close() error {
	n.closeOnce.Do(func() {
		close(n.closed)
		n.subMu.Lock()
		defer n.subMu.Unlock()
		n.mu.Lock()
		conns := n.conns
		n.conns = map[string]*conn{}
		for _, ch := range n.channels {
			if ch.idle != nil {
				ch.idle.Stop()
			}
		}
		n.mu.Unlock()
		for _, c := range conns {
			c.stopReceiving()
		}
	})
	n.bg.Wait()
	return nil
}

func (n *Notifier) deliver(name, payload string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.channels[name]
	if ch == nil {
		return
	}
	if payload == WakeAll {
		ch.wakeAll()
		return
	}
	if ms, ok := strings.CutPrefix(payload, Standby); ok {
		if d, err := strconv.Atoi(ms); err == nil {
			ch.standbyFor(time.Duration(d)*time.Millisecond + standbyMargin)
		}
		return
	}
	// A wake-up ends what a Standby message said (see SetDeadline), as
	// wakeAll does.
	ch.standby = time.Time{}
	if ch.waiters.Len() == 0 {
		n.unclaimed(ch)
		return
	}
	ch.wakeOne()
}

// unclaimed runs ch's PassOn function, if any, in a goroutine, unless the
// notifier is closed. n.mu held.
func (n *Notifier) unclaimed(ch *channel) {
	f := ch.passOn
	if f == nil {
		return
	}
	if n.isClosed() {
		return
	}
	n.bg.Add(1)
	go func() {
		defer n.bg.Done()
		if !n.isClosed() { // Close may have begun since
			f()
		}
	}()
}

// standbyFor brings ch's deadline forward to d from now, if it is later
// or unknown, and has the head look at its timer again (see [Standby]).
// n.mu held.
func (ch *channel) standbyFor(d time.Duration) {
	now := time.Now()
	due := now.Add(d)
	if !now.Before(ch.standby) || due.Before(ch.standby) {
		// None, or one whose time has passed, or a later one.
		ch.standby = due
	}
	if !ch.deadline.IsZero() && ch.deadline.Before(due) {
		return
	}
	ch.deadline = due
	if e := ch.waiters.Front(); e != nil {
		e.Value.(*Waiter).poke()
	}
}

// wakeOne signals the first waiter that has no wake-up pending, and
// reports whether there was one. n.mu held.
func (ch *channel) wakeOne() bool {
	for e := ch.waiters.Front(); e != nil; e = e.Next() {
		w := e.Value.(*Waiter)
		if len(w.signal) > 0 {
			continue
		}
		w.wake()
		return true
	}
	return false
}

// wakeAll signals every waiter, and ends what a Standby message said.
// n.mu held.
func (ch *channel) wakeAll() {
	ch.standby = time.Time{}
	for e := ch.waiters.Front(); e != nil; e = e.Next() {
		e.Value.(*Waiter).wake()
	}
}

func (w *Waiter) wake() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// Handoff leaves w's FIFO, as Leave(true) does, and wakes the waiter that
// is then first and has no wake-up pending, so that it tries the lock now:
// w got the lock as the last of its process to wait, as far as it knew,
// and a waiter that came meanwhile must register its own wait. Leaving
// and waking are one step: a waiter that joins after it is first in the
// FIFO, and tries the lock on its own. Handoff is idempotent with Leave.
func (w *Waiter) Handoff() { w.leave(true, true) }

// Head reports whether w is first in its channel's FIFO.
func (w *Waiter) Head() bool {
	w.n.mu.Lock()
	defer w.n.mu.Unlock()
	return w.ch.waiters.Front() == w.elem
}

// SetDeadline records, for every waiter on the channel, when the lock may
// become free without a message: now + wait, where wait is what an attempt
// returned (negative: never, so no timer). The head's timer follows it.
// A [Standby] message received since the last wake-up keeps its time,
// until that time has passed: the attempt's reply may have been sent
// before the release the message speaks of, and come after it.
func (w *Waiter) SetDeadline(wait time.Duration) {
	n, ch := w.n, w.ch
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	var d time.Time
	if wait >= 0 {
		// Let the server expire the key before the head looks again.
		d = now.Add(wait + time.Millisecond)
	}
	if now.Before(ch.standby) && (d.IsZero() || ch.standby.Before(d)) {
		d = ch.standby
	}
	ch.deadline = d
	if e := ch.waiters.Front(); e != nil && e != w.elem {
		e.Value.(*Waiter).poke()
	}
}

// Wait blocks until the waiter is woken, timeout elapses or ctx ends. A
// negative timeout means no timeout; zero returns at once. A wake-up that
// arrived before Wait was called is consumed at once. Wait returns
// ctx.Err() if ctx ended first and nil otherwise; once the Notifier is
// closed it returns [ErrClosed], even with a wake-up pending. It suits a
// waiter alone on its channel that keeps its own timer; waiters sharing a
// channel use WaitTurn.
func (w *Waiter) Wait(ctx context.Context, timeout time.Duration) error {
	w.woken = false
	if w.n.isClosed() {
		return ErrClosed
	}
	if w.pending() || timeout == 0 {
		return nil
	}
	var fire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		fire = t.C
	}
	w.sleep(1)
	defer w.sleep(-1)
	for {
		// Wait keeps its own timer: a poke to look at the channel's
		// deadline again is not for it.
		if rearmed, err := w.await(ctx, fire); !rearmed {
			return err
		}
	}
}

// Done returns a channel that is closed when Close is called.
func (n *Notifier) Done() <-chan struct{} { return n.closed }

// isClosed reports whether the notifier is closed.
func (n *Notifier) isClosed() bool {
	select {
	case <-n.closed:
		return true
	default:
		return false
	}
}

// pending consumes a wake-up that arrived before the waiter blocked, and
// reports whether there was one.
func (w *Waiter) pending() bool {
	select {
	case <-w.signal:
		w.woken = true
		return true
	default:
		return false
	}
}

// await blocks until the waiter is woken, fire fires, the waiter is poked
// to look at its timer again (rearmed), or ctx ends or the notifier closes
// (an error).
func (w *Waiter) await(ctx context.Context, fire <-chan time.Time) (rearmed bool, err error) {
	select {
	case <-w.signal:
		w.woken = true
		return false, nil
	case <-fire:
		return false, nil
	case <-w.rearm:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-w.n.closed:
		return false, ErrClosed
	}
}

// sleep counts the waiter in or out of the sleeping ones.
func (w *Waiter) sleep(delta int) {
	w.n.mu.Lock()
	w.ch.sleeping += delta
	w.n.mu.Unlock()
}

// WaitTurn blocks until the waiter should try the lock again: it was woken,
// or it is the head of the FIFO and the channel's deadline (see
// SetDeadline) passed. Only the head keeps a timer; the others sleep until a
// wake-up, and take the timer over when they become head. A wake-up that
// arrived before WaitTurn was called is consumed at once. It returns
// ctx.Err() if ctx ends first, [ErrClosed] once the Notifier is closed
// (even with a wake-up pending), else nil.
func (w *Waiter) WaitTurn(ctx context.Context) error {
	w.woken = false
	if w.n.isClosed() {
		return ErrClosed
	}
	w.sleep(1)
	defer w.sleep(-1)
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		if w.pending() {
			return nil
		}
		var fire <-chan time.Time
		if d, ok := w.timeout(); ok {
			if d <= 0 {
				return nil
			}
			if t == nil {
				t = time.NewTimer(d)
			} else {
				t.Reset(d)
			}
			fire = t.C
		}
		rearmed, err := w.await(ctx, fire)
		if !rearmed {
			return err
		}
		if t != nil {
			t.Stop()
		}
	}
}

// timeout returns how long the waiter may sleep before trying again, and
// false when it needs no timer: it is not the head, or the lock never
// expires by itself.
func (w *Waiter) timeout() (time.Duration, bool) {
	n, ch := w.n, w.ch
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch.waiters.Front() != w.elem || ch.deadline.IsZero() {
		return 0, false
	}
	return time.Until(ch.deadline), true
}

func (w *Waiter) poke() {
	select {
	case w.rearm <- struct{}{}:
	default:
	}
}

// Leave removes the waiter from its FIFO. acquired reports whether the
// waiter got what it waited for; if not, a wake-up it holds or last acted
// on is passed to the next waiter, so a release is never swallowed by a
// waiter that gave up (with no waiter left to take it, see [PassOn]). A
// channel whose last waiter left is unsubscribed after a short linger
// (100 ms) unless a new waiter comes back to it.
// Leave is idempotent.
func (w *Waiter) Leave(acquired bool) { w.leave(acquired, false) }

// leave is Leave, and with handoff Handoff.
func (w *Waiter) leave(acquired, handoff bool) {
	n, ch := w.n, w.ch
	n.mu.Lock()
	if w.left {
		n.mu.Unlock()
		return
	}
	w.left = true
	head := ch.waiters.Front() == w.elem
	ch.waiters.Remove(w.elem)
	switch {
	case handoff:
		ch.wakeOne()
	case !acquired && (w.woken || len(w.signal) > 0) && !ch.wakeOne():
		n.unclaimed(ch)
	}
	if e := ch.waiters.Front(); head && e != nil {
		// The new head takes over the timer.
		e.Value.(*Waiter).poke()
	}
	ch.refs--
	last := ch.refs == 0
	switch {
	case last && ch.confirmed:
		ch.idle = time.AfterFunc(linger, func() { n.expire(ch) })
		last = false
	case last:
		if n.channels[ch.name] == ch { // not one that failed (see fail)
			delete(n.channels, ch.name)
		}
		select {
		case <-n.closed:
			last = false // Close drops the connection
		default:
			n.bg.Add(1)
		}
	}
	n.mu.Unlock()
	if last {
		// In the background: a subscribe still on its way (to a server
		// that does not answer, say) holds subMu, and Leave must not wait
		// for it.
		go func() {
			defer n.bg.Done()
			n.unsubscribe(ch)
		}()
	}
}

// expire unsubscribes ch at the end of its linger unless a waiter came
// back meanwhile.
func (n *Notifier) expire(ch *channel) {
	n.mu.Lock()
	drop := ch.refs == 0 && n.channels[ch.name] == ch
	if drop {
		delete(n.channels, ch.name)
	}
	n.mu.Unlock()
	if drop {
		n.unsubscribe(ch)
	}
}

// Waiters returns the number of local waiters on channel.
func (n *Notifier) Waiters(channelName string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch := n.channels[channelName]; ch != nil {
		return ch.waiters.Len()
	}
	return 0
}

// Sleeping returns the number of local waiters on channel that are blocked
// waiting for a wake-up or their timer.
func (n *Notifier) Sleeping(channelName string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ch := n.channels[channelName]; ch != nil {
		return ch.sleeping
	}
	return 0
}

// Subscribed reports whether channel is subscribed, as Redis confirmed:
// a Subscribe to it now returns at once. A channel stays subscribed for a
// short linger after its last waiter left.
func (n *Notifier) Subscribed(channelName string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := n.channels[channelName]
	return ch != nil && ch.confirmed
}

// Channels returns the number of channels with local waiters. A channel
// without waiters stays subscribed for a short linger; once every linger
// ended the PubSub connection is closed.
func (n *Notifier) Channels() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, ch := range n.channels {
		if ch.refs > 0 {
			c++
		}
	}
	return c
}

// Kept returns how many channels the notifier keeps, whether waiters are
// on them, their subscribe is on its way or they linger after their last
// waiter left, and how many PubSub connections it has open. Both fall to 0
// once every waiter has left and the lingers have ended: what a notifier
// keeps does not grow with the number of channels it ever subscribed.
func (n *Notifier) Kept() (channels, conns int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.channels), len(n.conns)
}
