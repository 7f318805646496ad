package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// globNames and globPatterns exercise every rule of Redis's glob: the
// wildcards, classes with ranges (reversed too), negation and escapes,
// escapes outside classes, a class left open, and the bytes a lock's key
// percent-encodes. (No name is empty: no lock has one.)
var (
	globNames = []string{"a", "ab", "axb", "a{b", "a}b", "a%b", "a-b", "a]b", "a^b", `a\b`, "a*b", "a?b",
		"abc", "b", "é", "z", "a[b"}
	globPatterns = []string{"*", "**", "?", "??", "a?b", "a*", "*b", "a*b*", `a\?b`, `a\*b`, `a\\b`,
		"a[{]b", "a[%]b", "a[^x]b", "[a-c]*", "[c-a]*", "[^a]*", "a[x-z]b", `a[\]]b`, "a[]b", "a[-]b",
		"a[b-]", "a[", "[", "a[^]b", `a\`, "a[b", `a[\-]b`, "é", "?\xa9", "[a-]b", "a[z-]b", "a[^", "[^", `a[b\`, "*?", "a*[", "[\\-a]*"}
)

// TestGlobMatch_reads_patterns_as_Redis_does: for every pattern, globMatch
// picks the names whose keys a real server's KEYS picks.
func TestGlobMatch_reads_patterns_as_Redis_does(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	for _, name := range globNames {
		if err := rc.Set(ctx, name, 1, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, pattern := range globPatterns {
		want, err := rc.Keys(ctx, pattern).Result()
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		var got []string
		for _, name := range globNames {
			if globMatch(pattern, name) {
				got = append(got, name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("pattern %q: globMatch picks %q, KEYS picks %q", pattern, got, want)
		}
	}
}

// TestLs_PATTERN_matches_names_with_the_bytes_a_key_encodes: '%', '{' and
// '}' are percent-encoded in a lock's key, three bytes for one, yet ls
// matches the pattern against the name: '?' and a class stand for one of
// them as for any other byte.
func TestLs_PATTERN_matches_names_with_the_bytes_a_key_encodes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		names := []string{"a{b", "a}b", "a%b", "axb"}
		for _, n := range names {
			redistest.MustLock(t, reentrant.New(f.lc, n))
		}
		for _, tc := range []struct {
			pattern string
			want    []string
		}{
			{"a?b", names},
			{"a[{]b", []string{"a{b"}},
			{"a[%]b", []string{"a%b"}},
			{"a[^x]b", []string{"a{b", "a}b", "a%b"}},
			{"a%*", []string{"a%b"}},
			{`a\}b`, []string{"a}b"}},
			{"a*b", names},
		} {
			out := f.ok(t, "ls", "--prefix", f.prefix, tc.pattern)
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
				got = append(got, strings.Fields(line)[0])
			}
			if !sameNames(got, tc.want) {
				t.Errorf("ls %q listed %q, want %q:\n%s", tc.pattern, got, tc.want, out)
			}
		}
	})
}

// sameNames reports whether a and b hold the same names, in any order.
func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
