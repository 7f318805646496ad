package multilock

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// RunsScript reports whether cmd runs the RedLock node script called name
// ("acquire", "release", "renew", "undo" or "raise"), by EVALSHA or EVAL,
// so that tests can aim faults at one script.
func RunsScript(cmd redis.Cmder, name string) bool {
	s := map[string]*redis.Script{
		"acquire": lua.Mutex.Acquire, "release": lua.Mutex.Release, "renew": lua.Mutex.Renew,
		"undo": lua.Mutex.Undo, "raise": raiseScript,
	}[name]
	return s != nil && redistest.RunsScript(cmd, s)
}

// SetBackoff sets the bounds of the backoff r's Lock sleeps by between
// refused rounds.
func SetBackoff(r *RedLock, floor, cap time.Duration) {
	r.waiter.Floor, r.waiter.Cap = floor, cap
}
