package redistest

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// commandStat is one line of INFO commandstats: a command's name and how
// many times the server ran it.
var commandStat = regexp.MustCompile(`(?m)^cmdstat_([^:]+):calls=(\d+)`)

// notWork names the commands that serverCalls leaves out: the scripts
// themselves (what they call is counted), and what a client or the
// measurement sends besides a lock's work.
var notWork = []string{"eval", "script", "info", "config", "hello", "client", "ping", "select", "auth", "command"}

// serverCalls returns how many commands the server behind c has run so
// far, those its scripts called included and the scripts themselves not
// (see notWork), or -1 when it does not tell (miniredis has no INFO
// commandstats). Set beside the commands a client sends, it is the work a
// script does inside Redis.
func serverCalls(c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		return -1
	}
	stats := commandStat.FindAllStringSubmatch(info, -1)
	if len(stats) == 0 {
		return -1
	}
	var n int64
	for _, m := range stats {
		if isWork(m[1]) {
			calls, _ := strconv.ParseInt(m[2], 10, 64)
			n += calls
		}
	}
	return n
}

// isWork reports whether the command name is a lock's work (see notWork).
func isWork(name string) bool {
	for _, p := range notWork {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	return true
}
