package reentrant_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestLock_with_an_ended_ctx_gets_nothing_not_even_a_reentry: a Lock or
// TryLock whose ctx has ended already fails with an error matching both
// ErrNotObtained and ctx.Err(), also when its Mutex holds the lock (no
// re-entry) and when another Mutex of the Client holds it; the hold count
// is unchanged. Cohort mode, where a re-entry counts in memory, keeps
// that promise as well as the plain lock does.
func TestLock_with_an_ended_ctx_gets_nothing_not_even_a_reentry(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []lockkit.Option
	}{
		{"plain", nil},
		{"cohort", []lockkit.Option{handoff}},
		{"cohort_without_reentry", []lockkit.Option{handoff, lockkit.WithoutReentry()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, lc, name := oneProcess(t)
			m, other := reentrant.New(lc, name, tc.opts...), reentrant.New(lc, name, tc.opts...)
			redistest.MustLock(t, m)
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			redistest.WantErr(t, m.Lock(ended), lockkit.ErrNotObtained, context.Canceled)
			for what, l := range map[string]*reentrant.Mutex{"the holder": m, "another Mutex of the Client": other} {
				ok, err := l.TryLock(ended)
				if ok {
					t.Fatalf("TryLock by %s with an ended ctx succeeded", what)
				}
				redistest.WantErr(t, err, lockkit.ErrNotObtained, context.Canceled)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.WantHoldCount(t, other, 0)
			redistest.MustUnlock(t, m)
			redistest.WantErr(t, m.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrNotHeld)
			redistest.AssertClean(t, c, name)
		})
	}
}
