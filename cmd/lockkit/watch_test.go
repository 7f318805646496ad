package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
)

// nextEvent returns watch's next event, decoded.
func nextEvent(t *testing.T, w *running) Event {
	t.Helper()
	line := w.next(t)
	var ev Event
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("watch printed %q: %v", line, err)
	}
	return ev
}

// awaitEvents reads events until every one of want (event names) was
// seen, and returns them by name; it fails on an event not in want.
func awaitEvents(t *testing.T, w *running, want ...string) map[string]Event {
	t.Helper()
	seen := map[string]Event{}
	for len(seen) < len(want) {
		ev := nextEvent(t, w)
		ok := false
		for _, name := range want {
			ok = ok || ev.Event == name
		}
		if !ok {
			t.Fatalf("watch printed %+v, want only %q now", ev, want)
		}
		seen[ev.Event] = ev
	}
	return seen
}

func TestWatch_prints_acquires_releases_and_wakeups_until_interrupted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		m := reentrant.New(f.lc, f.name, lockkit.WithOwner("watched"))
		w := f.start(t, "watch", "-o", "json", "--prefix", f.prefix, f.name)

		// The state comes once the channels are subscribed.
		if ev := nextEvent(t, w); ev.Event != "state" || ev.Name != f.name || ev.Lock == nil || ev.Lock.Mode != "free" {
			t.Fatalf("watch began with %+v, want the free lock's state", ev)
		}
		redistest.MustLock(t, m)
		ev := awaitEvents(t, w, "acquire")["acquire"]
		if ev.Owner != "watched" || ev.Mode != "exclusive" || ev.Count != 1 || ev.Token != m.Token() {
			t.Errorf("acquire event %+v, want watched's hold, token %d", ev, m.Token())
		}
		redistest.MustLock(t, m)
		if ev := awaitEvents(t, w, "count")["count"]; ev.Count != 2 || ev.Previous != 1 {
			t.Errorf("count event %+v, want 1 -> 2", ev)
		}
		redistest.MustUnlock(t, m)
		if ev := awaitEvents(t, w, "count")["count"]; ev.Count != 1 || ev.Previous != 2 {
			t.Errorf("count event %+v, want 2 -> 1", ev)
		}
		token := m.Token()
		redistest.MustUnlock(t, m)
		evs := awaitEvents(t, w, "publish", "release")
		if ev := evs["release"]; ev.Owner != "watched" || ev.Token != token {
			t.Errorf("release event %+v, want watched's hold, token %d", ev, token)
		}
		if ev := evs["publish"]; ev.Channel != keys(f.prefix, f.name).Channel || ev.Message != "1" {
			t.Errorf("publish event %+v, want '1' on %s", ev, keys(f.prefix, f.name).Channel)
		}
		w.interrupt(t)
	})
}

func TestWatch_text_shows_an_acquire(t *testing.T) {
	rc := redistest.ServerBackend.Client(t)
	lc, prefix := prefixed(t, rc)
	name := redistest.Unique(t)
	w := cliFor(t, rc).start(t, "watch", "--prefix", prefix, name)
	if line := w.next(t); !matches(`^\d\d:\d\d:\d\d\.\d{3} state\s+`+name+`: - free`, line) {
		t.Fatalf("watch began with %q", line)
	}
	m := reentrant.New(lc, name, lockkit.WithOwner("watched"))
	redistest.MustLock(t, m)
	if line := w.next(t); !matches(`acquire\s+watched exclusive count 1 token `+itoa(m.Token())+`$`, line) {
		t.Errorf("watch printed %q, want the acquire", line)
	}
	redistest.MustUnlock(t, m)
	w.interrupt(t)
}

func TestWatch_prints_a_latchs_countdowns_and_an_elections_leader(t *testing.T) {
	rc := redistest.ServerBackend.Client(t)
	lc, prefix := prefixed(t, rc)
	ctx := redistest.Ctx(t, 30*time.Second)
	c := cliFor(t, rc)

	name := redistest.Unique(t) + "-latch"
	l := latch.New(lc, name, 2)
	w := c.start(t, "watch", "-o", "json", "--prefix", prefix, name)
	if ev := nextEvent(t, w); ev.Event != "state" || ev.Lock == nil || ev.Lock.Mode != "free" {
		t.Fatalf("watch began with %+v, want the free name's state", ev)
	}
	if _, err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := awaitEvents(t, w, "countdown")["countdown"]; ev.Count != 1 || ev.Previous != 2 {
		t.Errorf("countdown event %+v, want 2 -> 1", ev)
	}
	if _, err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	evs := awaitEvents(t, w, "publish", "open")
	if ev := evs["open"]; ev.Previous != 1 {
		t.Errorf("open event %+v, want from 1", ev)
	}
	if ev := evs["publish"]; ev.Channel != keys(prefix, name).Channel || ev.Message != "*" {
		t.Errorf("publish event %+v, want '*' on %s", ev, keys(prefix, name).Channel)
	}
	w.interrupt(t)

	name = redistest.Unique(t) + "-election"
	w = c.start(t, "watch", "-o", "json", "--prefix", prefix, name)
	if ev := nextEvent(t, w); ev.Event != "state" {
		t.Fatalf("watch began with %+v, want the state", ev)
	}
	lead, err := election.New(lc, name).Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	term := lead.Leader().Term
	// The acquire and the proclamation may be read at once or apart.
	evs = map[string]Event{}
	for len(evs) < 3 {
		ev := nextEvent(t, w)
		switch ev.Event {
		case "acquire", "leader", "publish":
			evs[ev.Event] = ev
		default:
			t.Fatalf("watch printed %+v, want the leader's acquire, proclamation and message", ev)
		}
	}
	if ev := evs["leader"]; ev.Value != "a" || ev.Token != term || ev.Owner != evs["acquire"].Owner || evs["acquire"].Token != term {
		t.Errorf("leader event %+v, acquire %+v: want value a, term %d", ev, evs["acquire"], term)
	}
	if ev := evs["publish"]; ev.Channel != keys(prefix, name).Sub("observe") || ev.Message != "*" {
		t.Errorf("publish event %+v, want '*' on the observers' channel", ev)
	}
	if err := lead.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	w.interrupt(t)
}

// TestWatch_outlasts_its_timeout checks what doc.go says of --timeout: it
// bounds each command but watch. A watch started with --timeout 1s still
// prints an acquire made once that second has passed twice over, and
// ends only when interrupted, with status 0.
func TestWatch_outlasts_its_timeout(t *testing.T) {
	rc := redistest.ServerBackend.Client(t)
	lc, prefix := prefixed(t, rc)
	name := redistest.Unique(t)
	const timeout = time.Second
	w := cliFor(t, rc).start(t, "watch", "-o", "json", "--timeout", timeout.String(), "--prefix", prefix, name)
	started := time.Now()
	if ev := nextEvent(t, w); ev.Event != "state" {
		t.Fatalf("watch began with %+v, want the lock's state", ev)
	}
	// The time passing is what is checked here, not a stand-in for an
	// event.
	time.Sleep(time.Until(started.Add(2 * timeout)))
	m := reentrant.New(lc, name, lockkit.WithOwner("watched"))
	redistest.MustLock(t, m)
	if ev := awaitEvents(t, w, "acquire")["acquire"]; ev.Owner != "watched" || ev.Token != m.Token() {
		t.Errorf("acquire event %+v, want watched's hold, token %d", ev, m.Token())
	}
	redistest.MustUnlock(t, m)
	w.interrupt(t)
}
