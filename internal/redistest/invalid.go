package redistest

import (
	"testing"

	"github.com/lockkit/lockkit"
)

// Invalid is a lock value made from bad input, and the words the
// ErrInvalid of each of its calls must contain.
type Invalid[T any] struct {
	Name string
	V    T
	Want string
}

// Invalids returns the bad input every kind refuses, in values newT makes
// of c: a nil Client, an empty name and a nil Option, then a zero value
// and a nil pointer, which New did not make; the cases of more follow.
func Invalids[E any](c *lockkit.Client, newT func(c *lockkit.Client, name string, opts ...lockkit.Option) *E, more []Invalid[*E]) []Invalid[*E] {
	return append([]Invalid[*E]{
		{"nil client", newT(nil, "x"), "client"},
		{"empty name", newT(c, ""), "name"},
		{"nil option", newT(c, "x", nil), "nil"},
		{"zero value", new(E), "New"},
		{"nil pointer", nil, "New"},
	}, more...)
}

// EachInvalid runs check on the value of each of cases, in a subtest
// named for it; check should test each call with [WantInvalid] and want.
func EachInvalid[T any](t *testing.T, cases []Invalid[T], check func(t *testing.T, v T, want string)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) { check(t, tc.V, tc.Want) })
	}
}
