package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// rueidislockLibrary is rueidis's rueidislock with one key per lock
// (KeyMajority 1: a single server, where the default of 2 would set 3
// keys) and NOLOOP tracking (Redis ≥ 7.0.5). Waiters are woken by
// client-side-caching invalidations; the lock is extended in the
// background every 2.5 s of its 5 s validity. Its Lock returns a cancel
// function, which Unlock calls; it returns once the key is deleted.
var rueidislockLibrary = library{
	name:  "rueidislock",
	about: "rueidis rueidislock, `KeyMajority: 1`, `NoLoopTracking: true`, other defaults (5 s validity)",
	open: func(addr string, conns int, wc *wireCounter) (backend, error) {
		lk, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption: rueidis.ClientOption{
				InitAddress: []string{addr},
				DialCtxFn: func(ctx context.Context, dst string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
					return wc.dial(ctx, d, "tcp", dst)
				},
			},
			KeyMajority:    1,
			NoLoopTracking: true,
		})
		if err != nil {
			return nil, err
		}
		return &rueidislockBackend{lk: lk}, nil
	},
}

// rueidislockBackend makes lockers from one rueidislock.Locker.
type rueidislockBackend struct{ lk rueidislock.Locker }

func (b *rueidislockBackend) NewLocker(name string) locker {
	return &rueidislockLocker{lk: b.lk, name: name}
}

func (b *rueidislockBackend) Close() error { b.lk.Close(); return nil }

// rueidislockLocker holds the cancel function of its current hold.
type rueidislockLocker struct {
	lk     rueidislock.Locker
	name   string
	cancel context.CancelFunc
}

func (l *rueidislockLocker) Lock(ctx context.Context) error {
	_, cancel, err := l.lk.WithContext(ctx, l.name)
	if err != nil {
		return err
	}
	l.cancel = cancel
	return nil
}

func (l *rueidislockLocker) Unlock(context.Context) error {
	if l.cancel == nil {
		return errors.New("rueidislock: not held")
	}
	l.cancel()
	l.cancel = nil
	return nil
}
