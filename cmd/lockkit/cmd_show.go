package main

import "context"

// showCommand is show: one lock in full.
func showCommand() *command {
	return onLock("show NAME", "print the whole state of lock NAME, in server time", nil, show)
}

// show reads lock NAME's keys at one instant, counts the subscribers of
// its wake-up channels and prints the decoded state.
func show(ctx context.Context, e *env, name string) error {
	ctx, cancel := e.bounded(ctx)
	defer cancel()
	l, err := e.inspect(ctx, name)
	if err != nil {
		return err
	}
	l.Subscribers = wakeChannels(keysOf(e.opts.prefix, l.Name), l)
	if err := countSubscribers(ctx, e.rc, l.Subscribers); err != nil {
		return err
	}
	if l.Subscribers == nil {
		l.Subscribers = []Subscribers{}
	}
	if e.opts.json() {
		return writeJSON(e.stdout, l)
	}
	return writeLock(e.stdout, l)
}
