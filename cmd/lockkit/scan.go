package main

import (
	"context"
	"slices"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/nodes"
)

// scanCount is the COUNT hint of each SCAN call.
const scanCount = 500

// scanLocks returns the sorted names of the locks under prefix whose names
// match pattern, found by SCAN over lock hashes on one server, or on every
// master of a Cluster.
func scanLocks(ctx context.Context, rc redis.UniversalClient, prefix, pattern string) ([]string, error) {
	match := hashPattern(prefix, pattern)
	seen := map[string]bool{}
	var mu sync.Mutex
	scan := func(ctx context.Context, c redis.Cmdable) error {
		it := c.ScanType(ctx, 0, match, scanCount, "hash").Iterator()
		for it.Next(ctx) {
			if name, ok := nameOf(prefix, it.Val()); ok && (pattern == "" || globMatch(pattern, name)) {
				mu.Lock()
				seen[name] = true
				mu.Unlock()
			}
		}
		return it.Err()
	}
	if err := nodes.Masters(ctx, rc, scan); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}
