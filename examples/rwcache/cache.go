package main

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

// cache is the shared entry: a hash with a version and a payload that must
// match it.
type cache struct {
	client *redis.Client
	locks  *lockkit.Client
	key    string // the entry's hash
	lock   string // the lock's name
}

func payload(v int) string { return "settings v" + strconv.Itoa(v) }

// store writes version v in two steps; readers must not see the gap.
func (c *cache) store(ctx context.Context, v int) error {
	if err := c.client.HSet(ctx, c.key, "version", v).Err(); err != nil {
		return err
	}
	return c.client.HSet(ctx, c.key, "payload", payload(v)).Err()
}

// load reads the entry and reports whether it is torn.
func (c *cache) load(ctx context.Context) (v int, torn bool, err error) {
	vals, err := c.client.HMGet(ctx, c.key, "version", "payload").Result()
	if err != nil {
		return 0, false, err
	}
	s, _ := vals[0].(string)
	p, _ := vals[1].(string)
	v, _ = strconv.Atoi(s)
	return v, p != payload(v), nil
}
