package conformance

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// testOddNames checks that any name works on every backend: braces (which
// would otherwise cut the Cluster hash tag short), binary bytes, and the
// longest name allowed.
func testOddNames(t *testing.T, e *env) {
	base := redistest.Unique(t)
	for _, name := range []string{"}" + base, "{" + base + "}", base + "}{", "%7D" + base, base + "\x00\xff", base + strings.Repeat("n", 1000-len(base))} {
		a, b := e.lock(name), e.lock(name)
		redistest.MustLock(t, a)
		if ok, err := b.TryLock(ctx(t)); ok || err != nil {
			t.Fatalf("name %q: TryLock by another owner = %v, %v; want false", name, ok, err)
		}
		redistest.MustUnlock(t, a)
		if ok, err := b.TryLock(ctx(t)); !ok || err != nil {
			t.Fatalf("name %q: TryLock after Unlock = %v, %v; want true", name, ok, err)
		}
		redistest.MustUnlock(t, b)
	}
}
