// Package exampleredis gives the example programs a Redis client: a real
// server when -redis ADDR is given, an embedded miniredis otherwise.
package exampleredis

import (
	"flag"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
)

var addr = flag.String("redis", "", "address of a Redis server (host:port); empty runs an embedded one")

// Connect parses the flags and returns a go-redis client, the lockkit
// Client every lock of the program is made from, and a function that
// closes both (and stops the embedded server, if any). It exits the
// program if the embedded server cannot start.
func Connect() (*redis.Client, *lockkit.Client, func()) {
	flag.Parse()
	if *addr != "" {
		c := redis.NewClient(&redis.Options{Addr: *addr})
		locks := lockkit.New(c)
		fmt.Printf("using Redis at %s\n", *addr)
		return c, locks, func() { locks.Close(); c.Close() }
	}
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	locks := lockkit.New(c)
	fmt.Println("using an embedded Redis (pass -redis host:port for a real one)")
	return c, locks, func() { locks.Close(); c.Close(); mr.Close() }
}
