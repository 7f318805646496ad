package redistest

import (
	"strings"

	"github.com/redis/go-redis/v9"
)

// adminClient returns a client for the harness's own commands to the
// server at addr (readiness probes, cluster setup): each dial, read and
// write is bounded by probeTimeout, nothing is retried, and a failed dial
// is reported at once. The caller closes it.
func adminClient(addr string) *redis.Client { return redis.NewClient(adminOptions(addr)) }

// adminOptions are the options of adminClient.
func adminOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:          addr,
		DialTimeout:   probeTimeout,
		ReadTimeout:   probeTimeout,
		WriteTimeout:  probeTimeout,
		DialerRetries: 1,
		MaxRetries:    -1,
		// Once as many dials have failed as the pool has connections,
		// go-redis starts a goroutine that redials every second until a
		// dial succeeds or it finds the client closed. With two, the one
		// dial a probe makes never starts it.
		PoolSize: 2,
	}
}

// infoField returns the value of field in an INFO-style "name:value" text.
func infoField(info, field string) (string, bool) {
	for line := range strings.Lines(info) {
		name, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ":")
		if ok && name == field {
			return value, true
		}
	}
	return "", false
}
