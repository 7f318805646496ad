package core

import (
	"context"
	"time"

	"github.com/lockkit/lockkit/notify"
)

// ReadRetry is how soon a broadcast waiter (a latch's Await, an
// election's observer) reads again after a read failed, unless a message
// or a reconnect of the notifier wakes it sooner: a failed read must not
// end a wait that a restart or failover interrupts for a moment.
const ReadRetry = 250 * time.Millisecond

// Broadcast waits for a change that every waiter awaits at once, rather
// than for a turn at a lock: a latch opening, a new leader. Each waiter
// checks right after its subscription is confirmed (so a change published
// between its first check and the subscription is not missed), then
// sleeps until a message on Channel (any message: the publisher sends
// notify.WakeAll), a reconnect of the notifier, or the wait the last
// check returned, and checks again. Waiters do not queue behind each
// other and pass nothing on when they leave: every one of them is woken
// by every message.
type Broadcast struct {
	Notifier *notify.Notifier
	Channel  string
}

// Turn implements Waiter.
func (b Broadcast) Turn() Turn { return &broadcastTurn{b: b, wait: -1} }

type broadcastTurn struct {
	b    Broadcast
	w    *notify.Waiter
	wait time.Duration // the last check's wait; negative: none
}

func (t *broadcastTurn) Eager() bool { return true }
func (t *broadcastTurn) Args() []any { return nil }

func (t *broadcastTurn) Join(ctx context.Context) (err error) {
	t.w, err = t.b.Notifier.Subscribe(ctx, t.b.Channel)
	return err
}

// Ready is always true: a waiter checks once its subscription is
// confirmed, whatever other waiters of the process do.
func (t *broadcastTurn) Ready() bool { return true }

func (t *broadcastTurn) Tried(_ bool, wait time.Duration) { t.wait = wait }

func (t *broadcastTurn) Closed() <-chan struct{} { return t.b.Notifier.Done() }

// Sleep waits for a message or the last check's wait, on the waiter's own
// timer.
func (t *broadcastTurn) Sleep(ctx context.Context) error { return t.w.Wait(ctx, t.wait) }

// Leave leaves the channel. The wake-up it may hold is not passed on:
// every waiter got its own.
func (t *broadcastTurn) Leave(bool) {
	if t.w != nil {
		t.w.Leave(true)
	}
}
