// Package exampleredis gives the example programs a Redis client: a real
// server when -redis ADDR is given, an embedded miniredis otherwise.
package exampleredis

import (
	"flag"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

var addr = flag.String("redis", "", "address of a Redis server (host:port); empty runs an embedded one")

// Connect parses the flags and returns a client and a function that closes
// it (and stops the embedded server, if any).
func Connect() (*redis.Client, func(), error) {
	flag.Parse()
	if *addr != "" {
		c := redis.NewClient(&redis.Options{Addr: *addr})
		fmt.Printf("using Redis at %s\n", *addr)
		return c, func() { c.Close() }, nil
	}
	mr, err := miniredis.Run()
	if err != nil {
		return nil, nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	fmt.Println("using an embedded Redis (pass -redis host:port for a real one)")
	return c, func() { c.Close(); mr.Close() }, nil
}
