package redistest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// cleanTimeout bounds the scan of AssertClean.
const cleanTimeout = 10 * time.Second

// AssertClean checks that Redis keeps nothing of lock name but what a freed
// lock keeps on purpose: its fencing counter (the key ending in ":fence",
// which never expires) and its set of released tokens (ending in
// ":released") while it has a TTL. Every other key whose hash tag is
// {name} is reported, with its TTL, as left behind. On a cluster client it
// scans every master.
func AssertClean(t testing.TB, c redis.UniversalClient, name string) {
	t.Helper()
	ctx := Ctx(t, cleanTimeout)
	var (
		mu   sync.Mutex // masters are scanned concurrently
		left []string
	)
	scan := func(ctx context.Context, n redis.UniversalClient) error {
		iter := n.Scan(ctx, 0, "*{"+name+"}*", 100).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			ttl, err := n.PTTL(ctx, key).Result()
			if err != nil {
				return err
			}
			switch {
			case strings.HasSuffix(key, ":fence"):
			case strings.HasSuffix(key, ":released") && ttl > 0:
			default:
				desc := key + " (no TTL)"
				if ttl > 0 {
					desc = key + " (TTL " + ttl.String() + ")"
				}
				mu.Lock()
				left = append(left, desc)
				mu.Unlock()
			}
		}
		return iter.Err()
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return scan(ctx, n) })
	} else {
		err = scan(ctx, c)
	}
	if err != nil {
		t.Fatalf("scanning for keys of %q: %v", name, err)
	}
	if len(left) > 0 {
		t.Errorf("keys of %q left behind: %s", name, strings.Join(left, ", "))
	}
}
