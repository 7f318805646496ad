package semaphore

import (
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// RunsAcquire reports whether cmd runs the semaphore's acquire script, so
// that tests can aim faults at it.
func RunsAcquire(cmd redis.Cmder) bool { return redistest.RunsScript(cmd, acquireScript) }
