package lockers

import (
	"context"
	"sync/atomic"

	"github.com/lockkit/lockkit"
)

// valueHold is one hold of a kind whose Lock returns a value.
type valueHold interface {
	Release(ctx context.Context) error
	Lost() <-chan struct{}
	Token() int64
}

// lastHold gives a Locker over such a kind its Unlock, Lost and Token:
// they act on the last hold its Lock or TryLock took. It is safe for
// concurrent use.
type lastHold struct {
	v atomic.Value // the last hold, of one concrete type; nil before the first
}

func (l *lastHold) set(h valueHold) { l.v.Store(h) }

func (l *lastHold) held() valueHold {
	h, _ := l.v.Load().(valueHold)
	return h
}

// Unlock releases the last hold taken; it returns lockkit.ErrNotHeld
// before the first.
func (l *lastHold) Unlock(ctx context.Context) error {
	h := l.held()
	if h == nil {
		return lockkit.ErrNotHeld
	}
	return h.Release(ctx)
}

// Lost returns the lost signal of the last hold taken, nil before the
// first.
func (l *lastHold) Lost() <-chan struct{} {
	if h := l.held(); h != nil {
		return h.Lost()
	}
	return nil
}

// Token returns the fencing token of the last hold taken, 0 before the
// first.
func (l *lastHold) Token() int64 {
	if h := l.held(); h != nil {
		return h.Token()
	}
	return 0
}
