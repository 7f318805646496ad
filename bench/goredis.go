package main

import (
	"context"
	"net"

	"github.com/redis/go-redis/v9"
)

// newGoRedis returns a go-redis client for addr whose connections count
// what they write into wc. Its pool has room for every goroutine of the
// process plus a few spare connections, so that no goroutine waits for a
// connection (go-redis's default is 10 per CPU).
func newGoRedis(addr string, conns int, wc *wireCounter) *redis.Client {
	var d net.Dialer
	return redis.NewClient(&redis.Options{
		Addr:     addr,
		PoolSize: conns + 8,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wc.wrap(c), nil
		},
	})
}
