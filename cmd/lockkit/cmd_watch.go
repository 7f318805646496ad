package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/core"
)

// watchCommand is watch: live acquires and releases.
func watchCommand() *command {
	interval := new(time.Duration)
	return onLock("watch [--interval D] NAME", "print acquires, releases and wake-ups of lock NAME until interrupted",
		func(fs *flag.FlagSet) {
			fs.DurationVar(interval, "interval", 100*time.Millisecond, "how often to poll the state")
		},
		func(ctx context.Context, e *env, name string) error { return watch(ctx, e, name, *interval) })
}

// watch subscribes to lock name's wake-up channels (the shared ones, an
// election's observers' and, by pattern, every process's, fair waiter's
// and read-write lock writers' process's own), then prints the lock's
// state and,
// until ctx ends, every change: each message published on those channels,
// and the changes between successive reads of the state, read every
// interval and at once after each message. A hold taken and released
// between two reads shows only by its release's message (a spin lock's
// not at all: it publishes nothing).
// An interrupt ends it with no error, also while it still connects,
// subscribes or reads the first state.
func watch(ctx context.Context, e *env, name string, interval time.Duration) error {
	if interval <= 0 {
		return usageError{fmt.Sprintf("--interval %v: must be positive", interval)}
	}
	// go-redis waits for a reply as long as --timeout allows, whatever ctx
	// says (that of a new connection's handshake, say): an interrupt ends
	// the watch at once, and the process with it, without waiting for it.
	done := make(chan error, 1)
	go func() { done <- follow(ctx, e, name, interval) }()
	select {
	case err := <-done:
		if err != nil && ctx.Err() == nil {
			return err
		}
	case <-ctx.Done():
	}
	return nil
}

// follow is watch once its flags are checked.
func follow(ctx context.Context, e *env, name string, interval time.Duration) error {
	k := keysOf(e.opts.prefix, name)
	ps := e.rc.Subscribe(ctx, k.Channel, k.WriterChannel, k.Observers)
	defer ps.Close()
	// Each process's and fair waiter's own channel, and each process's
	// own channel for a read-write lock's writers.
	if err := ps.PSubscribe(ctx, globLiteral(k.OwnChannels)+"*", globLiteral(k.WriterChannel+":")+"*"); err != nil {
		return err
	}
	// Wait for the five confirmations, so nothing published after the
	// first state is missed.
	if err := confirmed(ctx, e, ps, 5); err != nil {
		return err
	}
	msgs := ps.Channel()
	// On a Cluster, lockkit publishes on shard channels (Redis 7), which
	// have no patterns: the messages to one process or waiter are not
	// seen there, only the changes they cause.
	var shard <-chan *redis.Message
	if core.Sharded(e.rc) {
		sps := e.rc.SSubscribe(ctx, k.Channel, k.WriterChannel, k.Observers)
		defer sps.Close()
		var rerr redis.Error
		switch err := confirmed(ctx, e, sps, 3); {
		case errors.As(err, &rerr):
			// A server without sharded pub/sub.
		case err != nil:
			return err
		default:
			shard = sps.Channel()
		}
	}

	read := func() (*Lock, error) {
		rctx, cancel := e.bounded(ctx)
		defer cancel()
		return e.inspect(rctx, name)
	}
	prev, err := read()
	if err != nil {
		return err
	}
	entry := prev.entry()
	if err := e.emit(Event{Event: "state", Name: name, Lock: &entry}); err != nil {
		return err
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		var m *redis.Message
		open := true
		select {
		case <-ctx.Done():
			return nil
		case m, open = <-msgs:
		case m, open = <-shard:
		case <-tick.C:
		}
		if !open {
			return nil
		}
		if m != nil {
			if err := e.emit(Event{Event: "publish", Name: name, Channel: m.Channel, Message: m.Payload}); err != nil {
				return err
			}
		}
		cur, err := read()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(e.stderr, "lockkit watch: %v\n", err)
			continue
		}
		for _, ev := range changes(prev, cur) {
			ev.Name = name
			if err := e.emit(ev); err != nil {
				return err
			}
		}
		prev = cur
	}
}

// emit prints ev, stamped with the local time.
func (e *env) emit(ev Event) error {
	ev.Time = time.Now().Format("2006-01-02T15:04:05.000Z07:00")
	if e.opts.json() {
		return writeJSON(e.stdout, ev)
	}
	return writeEvent(e.stdout, ev)
}

// confirmed waits for n subscription confirmations on ps, each bounded by
// the request timeout.
func confirmed(ctx context.Context, e *env, ps *redis.PubSub, n int) error {
	for range n {
		confirm, cancel := e.bounded(ctx)
		msg, err := ps.Receive(confirm)
		cancel()
		if err != nil {
			return fmt.Errorf("subscribing: %w", err)
		}
		if _, ok := msg.(*redis.Subscription); !ok {
			return fmt.Errorf("subscribing: unexpected %T", msg)
		}
	}
	return nil
}
