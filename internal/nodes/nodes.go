// Package nodes runs a function on the servers of a Redis deployment: on
// every master (or every node) of a Cluster, concurrently, and on the one
// server behind any other client.
package nodes

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Masters calls fn with every master of a Cluster client, concurrently, or
// with rc itself for any other client, and returns the first error. It is
// for what each master holds a part of: keys.
func Masters(ctx context.Context, rc redis.UniversalClient, fn func(context.Context, redis.Cmdable) error) error {
	if cc, ok := rc.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return fn(ctx, c) })
	}
	return fn(ctx, rc)
}

// All is Masters over every node of a Cluster, replicas included: for what
// any node may have, such as pub/sub subscribers.
func All(ctx context.Context, rc redis.UniversalClient, fn func(context.Context, redis.Cmdable) error) error {
	if cc, ok := rc.(*redis.ClusterClient); ok {
		return cc.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return fn(ctx, c) })
	}
	return fn(ctx, rc)
}
