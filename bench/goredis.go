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
			return wc.dial(ctx, &d, network, addr)
		},
	})
}

// goRedisLibrary is a contender that runs over one go-redis client per
// process, made by newGoRedis: wrap makes the backend from that client,
// and the backend's Close closes it.
func goRedisLibrary(name, about string, wrap func(rdb *redis.Client) backend) library {
	return library{
		name:  name,
		about: about,
		open: func(addr string, conns int, wc *wireCounter) (backend, error) {
			return wrap(newGoRedis(addr, conns, wc)), nil
		},
	}
}
