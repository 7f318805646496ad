package conformance

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// OddNames returns names made from base that every kind must take as
// they are: braces (which would otherwise cut the Cluster hash tag short,
// or begin it), a percent sign, ':', a space, a newline, a tab, unicode,
// bytes that are not UTF-8, and a long name (1000 bytes, leaving room for
// what a multi-lock's members add to its name).
func OddNames(base string) []string {
	return []string{
		"}" + base, "{" + base, "{" + base + "}", base + "}{", "{}" + base + "}", "%7D" + base,
		base + ":a:b", base + " space", base + "\nnewline\r\n", "\ttab" + base,
		"ünï©ødé-" + base, base + "\x00\xff\xfe",
		base + strings.Repeat("n", 1000-len(base)),
	}
}

// testOddNames checks that any name works on every backend: another
// owner is kept out while it is held, and a waiter is woken by its
// release (on the lock's channel, whose name carries the lock's).
func testOddNames(t *testing.T, e *env) {
	for _, name := range OddNames(redistest.Unique(t)) {
		a, b := e.lock(name), e.lock(name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("name %q: TryLock by another owner = %v, %v; want false", name, ok, err)
		}
		got := redistest.LockAsync(redistest.Ctx(t, waitTimeout), b)
		redistest.MustUnlock(t, a)
		if err := redistest.Receive(t, got, waitTimeout, "the waiter's Lock"); err != nil {
			t.Fatalf("name %q: waiter's Lock after Unlock: %v", name, err)
		}
		redistest.MustUnlock(t, b)
	}
}

// LookalikeNames returns names made from base that look like the keys of
// the lock base (its fencing counter, a released token, its waiting
// processes, its channel) or like base with a brace or its percent
// encoding.
func LookalikeNames(base string) []string {
	return []string{
		base, base + ":fence", base + ":released", base + ":released:1", base + ":procs", base + ":turn",
		base + ":ch", base + ":waiters", base + ":leases", base + "}:fence", base + "%7D:fence", base + "}",
		base + "%7D", base + "%257D", "{" + base + "}", "lockkit:{" + base + "}",
	}
}

// testLookalikeNames checks that names that look like another name's keys
// are locks of their own: all of them are held at once, each by its own
// owner (a shared key would refuse one of them, or fail on the key's type),
// every other owner is kept out of each, and each is free once released.
func testLookalikeNames(t *testing.T, e *env) {
	names := LookalikeNames(redistest.Unique(t))
	holders := make([]lockkit.Locker, len(names))
	for i, name := range names {
		holders[i] = e.lock(name)
		redistest.MustLock(t, holders[i])
	}
	for i, name := range names {
		if ok, err := e.lock(name).TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("name %q: TryLock by another owner = %v, %v; want false", name, ok, err)
		}
		redistest.MustUnlock(t, holders[i])
		for _, other := range holders[i+1:] {
			wantHoldCount(t, other, 1)
		}
	}
	for _, name := range names {
		other := e.lock(name)
		if ok, err := other.TryLock(ctx(t)); !ok || err != nil {
			t.Fatalf("name %q: TryLock after its Unlock = %v, %v; want true", name, ok, err)
		}
		redistest.MustUnlock(t, other)
	}
}
