package redistest

import (
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ClientSpec describes the Redis that c talks to as a string that a child
// process can take as an argument: "standalone=ADDR" for a [redis.Client],
// "cluster=ADDR,ADDR,..." for a [redis.ClusterClient]. [SpecClient] opens a
// client from it. It panics on any other kind of client.
func ClientSpec(c redis.UniversalClient) string {
	switch c := c.(type) {
	case *redis.Client:
		return "standalone=" + c.Options().Addr
	case *redis.ClusterClient:
		return "cluster=" + strings.Join(c.Options().Addrs, ",")
	}
	panic(fmt.Sprintf("redistest: ClientSpec of unsupported client %T", c))
}

// SpecClient returns a new client of the Redis that spec, made by
// [ClientSpec], describes. The caller closes it.
func SpecClient(spec string) redis.UniversalClient {
	kind, addrs, _ := strings.Cut(spec, "=")
	if kind == "cluster" {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ",")})
	}
	return redis.NewClient(&redis.Options{Addr: addrs})
}
