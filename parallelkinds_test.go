package lockkit_test

import (
	"context"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// eachKindInParallel runs test for each of configKinds, in parallel
// subtests named for the kinds, each with a ctx that ends after
// redistest.Hang and a fresh lock name.
func eachKindInParallel(t *testing.T, test func(t *testing.T, ctx context.Context, k contended, name string)) {
	t.Helper()
	for _, k := range configKinds {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			test(t, redistest.Ctx(t, redistest.Hang), k, redistest.Unique(t))
		})
	}
}
