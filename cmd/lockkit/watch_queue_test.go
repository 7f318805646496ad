package main

import (
	"slices"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// eventsUntil reads watch's events until it has seen every one of want
// (event names), returning the events read; it fails the test on an event
// neither in want nor in also.
func eventsUntil(t *testing.T, w *running, want, also []string) []Event {
	t.Helper()
	var evs []Event
	missing := slices.Clone(want)
	for len(missing) > 0 {
		ev := nextEvent(t, w)
		if !slices.Contains(want, ev.Event) && !slices.Contains(also, ev.Event) {
			t.Fatalf("watch printed %+v, want only %q (and %q) now", ev, want, also)
		}
		missing = slices.DeleteFunc(missing, func(s string) bool { return s == ev.Event })
		evs = append(evs, ev)
	}
	return evs
}

// watchPastState starts a JSON watch of name under f's prefix and reads
// past its first event, the state, to the events that follow.
func (f *fixture) watchPastState(t *testing.T, name string) *running {
	t.Helper()
	w := f.start(t, "-o", "json", "watch", "--prefix", f.prefix, name)
	nextEvent(t, w) // the state
	return w
}

// TestWatch_prints_a_fair_queue_and_a_writers_intent checks the events
// doc.go promises for waiters that Redis keeps: an owner that joins and
// leaves a fair queue, and a read-write lock's writer intent that begins
// and ends, each with the release and acquire of the hand-over, and the
// wake-up message sent to the waiter's process (on a standalone server,
// where it goes to the process's own channel).
func TestWatch_prints_a_fair_queue_and_a_writers_intent(t *testing.T) {
	f := newFixture(t, redistest.ServerBackend.Client(t))
	other := f.process(t)

	t.Run("fair", func(t *testing.T) {
		name := f.name + "-fair"
		holder := fair.New(f.lc, name, lockkit.WithOwner("holder"))
		redistest.MustLock(t, holder)
		w := f.watchPastState(t, name)
		waiter := fair.New(other, name, lockkit.WithOwner("waiter"))
		got := waitInBackground(t, waiter.Lock)
		if ev := eventsUntil(t, w, []string{"join"}, nil)[0]; ev.Owner != "waiter" {
			t.Errorf("join event %+v, want the waiter", ev)
		}
		redistest.MustUnlock(t, holder)
		evs := eventsUntil(t, w, []string{"release", "acquire", "leave", "publish"}, nil)
		wantEvent(t, evs, Event{Event: "leave", Owner: "waiter"})
		wantEvent(t, evs, Event{Event: "publish", Channel: keys(f.prefix, name).Sub("ch") + ":waiter", Message: "1"})
		if err := redistest.Receive(t, got, redistest.Hang, "the waiter to get the lock"); err != nil {
			t.Fatal(err)
		}
		redistest.MustUnlock(t, waiter)
		w.interrupt(t)
	})

	t.Run("rwlock", func(t *testing.T) {
		name := f.name + "-rw"
		reader := rwlock.New(f.lc, name, lockkit.WithOwner("reader"))
		if err := reader.RLock(f.ctx); err != nil {
			t.Fatal(err)
		}
		w := f.watchPastState(t, name)
		writer := rwlock.New(other, name, lockkit.WithOwner("writer"))
		got := waitInBackground(t, writer.Lock)
		if ev := eventsUntil(t, w, []string{"intent"}, nil)[0]; ev.Owner != "writer" {
			t.Errorf("intent event %+v, want the writer", ev)
		}
		if err := reader.RUnlock(f.ctx); err != nil {
			t.Fatal(err)
		}
		evs := eventsUntil(t, w, []string{"release", "acquire", "intent_end", "publish"}, nil)
		wantEvent(t, evs, Event{Event: "intent_end", Owner: "writer"})
		wantEvent(t, evs, Event{Event: "publish", Channel: keys(f.prefix, name).Sub("wch") + ":" + other.Notifier().ID(), Message: "1"})
		if err := redistest.Receive(t, got, redistest.Hang, "the writer to get the lock"); err != nil {
			t.Fatal(err)
		}
		if err := writer.Unlock(f.ctx); err != nil {
			t.Fatal(err)
		}
		w.interrupt(t)
	})
}

// wantEvent fails the test unless evs holds one event with the event
// name, owner, channel and message of want.
func wantEvent(t *testing.T, evs []Event, want Event) {
	t.Helper()
	if !slices.ContainsFunc(evs, func(ev Event) bool {
		return ev.Event == want.Event && ev.Owner == want.Owner && ev.Channel == want.Channel && ev.Message == want.Message
	}) {
		t.Errorf("events %+v lack %+v", evs, want)
	}
}
