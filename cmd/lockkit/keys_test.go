package main

import (
	"path"
	"testing"
)

func TestNameOf_reads_back_every_name_the_library_writes(t *testing.T) {
	for _, name := range []string{"orders:42", "a}b", "{x}", "%7B", "100%", "*?[x]", "é"} {
		k := keysOf("lockkit", name)
		got, ok := nameOf("lockkit", k.Base)
		if !ok || got != name {
			t.Errorf("nameOf(%q) = %q, %v; want %q", k.Base, got, ok, name)
		}
		for _, other := range []string{k.Fence, k.Released, k.Waiters, k.Leases, k.Writers} {
			if _, ok := nameOf("lockkit", other); ok {
				t.Errorf("nameOf(%q) took a lock's other key for its hash", other)
			}
		}
	}
}

func TestHashPattern_matches_the_hashes_of_matching_names_only(t *testing.T) {
	for _, tc := range []struct {
		prefix, pattern, name string
		want                  bool
	}{
		{"lockkit", "", "anything", true},
		{"lockkit", "orders:*", "orders:42", true},
		{"lockkit", "orders:*", "users:1", false},
		{"lockkit", "a}*", "a}b", true},
		{"lock*", "*", "x", true},
	} {
		// path.Match speaks Redis's glob for these patterns.
		got, err := path.Match(hashPattern(tc.prefix, tc.pattern), keysOf(tc.prefix, tc.name).Base)
		if err != nil || got != tc.want {
			t.Errorf("pattern %q matches %q: %v, %v; want %v", tc.pattern, tc.name, got, err, tc.want)
		}
		if other, _ := path.Match(hashPattern(tc.prefix, tc.pattern), "lockkitX:{"+tc.name+"}"); other && tc.prefix == "lock*" {
			t.Errorf("prefix %q is not matched literally", tc.prefix)
		}
	}
}
