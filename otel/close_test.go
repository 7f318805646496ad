package otel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// TestInstrument_Close_ends_the_holds_and_waits_it_cuts_short closes an
// instrumented Client while one owner holds a lock and another waits for
// it: the hold ends as lost (lockkit.lock.lost, hold.duration
// {outcome=lost}), the wait ends as failed, and lockkit.lock.held and
// lockkit.lock.waiting come back to 0: nothing stays counted live after
// Close.
func TestInstrument_Close_ends_the_holds_and_waits_it_cuts_short(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	name := redistest.Unique(t)
	holder := reentrant.New(c, name)
	redistest.MustLock(t, holder)
	got := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), reentrant.New(c, name))
	redistest.Eventually(t, redistest.Hang, "the waiter to sleep", func() bool {
		return c.Notifier().Sleeping("lockkit:{"+name+"}:ch:"+c.Notifier().ID()) == 1
	})

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, got, redistest.Hang, "the waiter's Lock to return"), lockkit.ErrClosed)
	m := collect(t, reader)
	for _, inst := range []string{"lockkit.lock.held", "lockkit.lock.waiting"} {
		if n := sum(t, m, inst, kind("reentrant")); n != 0 {
			t.Errorf("%s %d after Close, want 0", inst, n)
		}
	}
	if n := sum(t, m, "lockkit.lock.lost", kind("reentrant")); n != 1 {
		t.Errorf("lost %d, want the hold Close cut short", n)
	}
	if p := hist(t, m, "lockkit.lock.hold.duration", kind("reentrant"), outcome("lost")); p.Count != 1 {
		t.Errorf("hold.duration{outcome=lost}: count %d, want 1", p.Count)
	}
	if p := hist(t, m, "lockkit.lock.wait.duration", kind("reentrant"), outcome("failed")); p.Count != 1 {
		t.Errorf("wait.duration{outcome=failed}: count %d, want 1", p.Count)
	}
}

// TestInstrument_Close_ends_a_hold_of_every_kind once: one hold of every
// kind that holds (and a read hold), then Close, which reports each lost. Each kind's loss
// must end the hold it began (lockkit.lock.held back to 0, one
// hold.duration{outcome=lost}), and the Unlock that follows must not end
// it again.
func TestInstrument_Close_ends_a_hold_of_every_kind(t *testing.T) {
	s := redistest.StartServer(t)
	c, reader := instrumentedOn(t, s.Client(t))
	ks := contenders(t, c)
	releases := make([]func(context.Context) error, len(ks))
	for i, k := range ks {
		release, err := k.hold(redistest.Ctx(t, redistest.Hang))
		if err != nil {
			t.Fatalf("%v: %v", k.kind, err)
		}
		releases[i] = release
	}
	// And a read hold, whose loss must name the read side.
	rw := rwlock.New(c, redistest.Unique(t))
	if err := rw.RLock(redistest.Ctx(t, redistest.Hang)); err != nil {
		t.Fatal(err)
	}
	releases = append(releases, rw.RUnlock)
	ks = append(ks, contender{kind: []attribute.KeyValue{kind("rwlock"), mode("read")}})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, release := range releases {
		_ = release(redistest.Ctx(t, redistest.Hang)) // frees the lock in Redis, or finds it gone
	}
	m := collect(t, reader)
	for _, k := range ks {
		// The rwlock's holder holds the write lock.
		attrs := k.kind
		if k.hold != nil && k.kind[0].Value.AsString() == "rwlock" {
			attrs = []attribute.KeyValue{kind("rwlock"), mode("write")}
		}
		if n := sum(t, m, "lockkit.lock.held", attrs...); n != 0 {
			t.Errorf("held{%v} %d after Close, want 0", attrs, n)
		}
		if n := sum(t, m, "lockkit.lock.lost", attrs...); n != 1 {
			t.Errorf("lost{%v} %d, want 1", attrs, n)
		}
		if p := hist(t, m, "lockkit.lock.hold.duration", append(attrs, outcome("lost"))...); p.Count != 1 {
			t.Errorf("hold.duration{%v, lost}: count %d, want 1", attrs, p.Count)
		}
	}
	if n := points(m["lockkit.lock.hold.duration"]); n != len(ks) {
		t.Errorf("hold.duration has %d data points, want %d: %s", n, len(ks), attrSets(m["lockkit.lock.hold.duration"]))
	}
}
