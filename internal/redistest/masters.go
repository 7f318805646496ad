package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// maxNameTries bounds how many names NamesOnDistinctMasters draws.
const maxNameTries = 1000

// NamesOnDistinctMasters returns n lock names, unique as by [Unique], whose
// keys (everything tagged {name}) live on n different masters of the
// cluster cc.
func NamesOnDistinctMasters(t testing.TB, cc *redis.ClusterClient, n int) []string {
	t.Helper()
	ctx := Ctx(t, queryTimeout)
	var names []string
	seen := map[string]bool{}
	for range maxNameTries {
		name := Unique(t)
		node, err := cc.MasterForKey(ctx, "{"+name+"}")
		if err != nil {
			t.Fatal(err)
		}
		if addr := node.Options().Addr; !seen[addr] {
			seen[addr] = true
			names = append(names, name)
			if len(names) == n {
				return names
			}
		}
	}
	t.Fatalf("found no %d names on distinct masters", n)
	return nil
}
