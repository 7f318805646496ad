package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// What the connection tests hold and then read through the command.

// holdReentrant takes a reentrant lock of c as "owner", held twice (see
// holdTwice), and returns it.
func holdReentrant(t *testing.T, c *lockkit.Client) *reentrant.Mutex {
	t.Helper()
	m := reentrant.New(c, redistest.Unique(t), lockkit.WithOwner("owner"))
	holdTwice(t, m)
	return m
}

// holdTwice locks m four times and unlocks it twice (two partial unlocks,
// both listed in the hold), so that it holds it twice.
func holdTwice(t *testing.T, m *reentrant.Mutex) {
	t.Helper()
	for range 4 {
		redistest.MustLock(t, m)
	}
	redistest.MustUnlock(t, m)
	redistest.MustUnlock(t, m)
}

// holdVia takes a reentrant lock as holdReentrant does, through a client
// of opts (closed in t.Cleanup) under a prefix unique to the test, and
// returns the lock and the prefix.
func holdVia(t *testing.T, opts *redis.Options) (*reentrant.Mutex, string) {
	t.Helper()
	rc := redis.NewClient(opts)
	t.Cleanup(func() { _ = rc.Close() })
	c, prefix := prefixed(t, rc)
	return holdReentrant(t, c), prefix
}

// wantShowsHeld runs show of m, under prefix, through c, and fails the
// test unless it shows m held as wantHeld says.
func (c cli) wantShowsHeld(t *testing.T, prefix string, m *reentrant.Mutex) {
	t.Helper()
	var l Lock
	c.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
	wantHeld(t, &l, m)
}

// wantListsAlone runs ls under prefix through c, fails the test unless it
// lists m alone, and returns m's entry.
func (c cli) wantListsAlone(t *testing.T, prefix string, m *reentrant.Mutex) Entry {
	t.Helper()
	var entries []Entry
	c.okJSON(t, &entries, "ls", "--prefix", prefix)
	if len(entries) != 1 || entries[0].Name != m.Name() {
		t.Fatalf("ls --prefix %s: %+v, want %s alone", prefix, entries, m.Name())
	}
	return entries[0]
}

// wantHeld fails the test unless l shows m held twice by "owner" with m's
// token.
func wantHeld(t *testing.T, l *Lock, m *reentrant.Mutex) {
	t.Helper()
	if l.Name != m.Name() || l.Kind != "reentrant" || !l.Held || l.Mode != "exclusive" {
		t.Errorf("show %s: name %q kind %q held %v mode %q, want a held reentrant lock", m.Name(), l.Name, l.Kind, l.Held, l.Mode)
	}
	if got, want := holderLines(l.Holders), []string{"owner exclusive 2 " + itoa(m.Token())}; !slices.Equal(got, want) {
		t.Errorf("show %s: holders %q, want %q", m.Name(), got, want)
	}
	if len(l.Holders) == 1 {
		if a := l.Holders[0].LastAcquire; a == "" || strings.Contains(a, " ") {
			t.Errorf("show %s: last acquire %q, want one attempt id", m.Name(), a)
		}
		if u := l.Holders[0].LastUnlock; u == "" || strings.Contains(u, " ") {
			t.Errorf("show %s: last unlock %q, want one unlock id", m.Name(), u)
		}
	}
	if l.Fence != m.Token() {
		t.Errorf("show %s: fence %d, want the token %d", m.Name(), l.Fence, m.Token())
	}
}
