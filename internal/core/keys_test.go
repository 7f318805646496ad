package core

import (
	"strings"
	"testing"
)

// hashTag returns the part of key Redis Cluster hashes: the text between
// the first '{' and the first '}' after it, if that is not empty.
func hashTag(key string) string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return key
	}
	return key[i+1 : i+1+j]
}

func TestNewKeys_every_name_keeps_one_slot(t *testing.T) {
	names := []string{"orders:42", "}", "}x{", "{a}", "a}b", "%7D", "\x00\xff", strings.Repeat("n", MaxNameLen)}
	seen := map[string]string{}
	for _, name := range names {
		k := NewKeys("lockkit", name, false)
		tag := hashTag(k.Base)
		if tag == "" || tag == k.Base {
			t.Fatalf("name %q: key %q has no hash tag", name, k.Base)
		}
		for _, key := range []string{k.Fence, k.Released, k.Channel, k.Sub("queue")} {
			if hashTag(key) != tag {
				t.Fatalf("name %q: %q is tagged %q, not %q", name, key, hashTag(key), tag)
			}
		}
		if prev, dup := seen[k.Base]; dup {
			t.Fatalf("names %q and %q share the key %q", prev, name, k.Base)
		}
		seen[k.Base] = name
	}
	if got := NewKeys("lockkit", "orders:42", false).Base; got != "lockkit:{orders:42}" {
		t.Fatalf("plain name's key = %q", got)
	}
}
