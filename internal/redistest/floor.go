package redistest

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// floorScript is the cheapest script: what a lock's round trip costs
// before the lock does anything.
var floorScript = redis.NewScript("return 1")

// Floor is the floor the benchmarks measure a lock against: a Locker whose
// Lock and Unlock each run the script "return 1" once (EVALSHA), on one
// key, and exclude nobody. Two round trips per cycle, as an uncontended
// Lock+Unlock of a lockkit lock.
type Floor struct {
	C redis.UniversalClient
}

// Lock runs the floor's script once.
func (f Floor) Lock(ctx context.Context) error { return f.run(ctx) }

// Unlock runs the floor's script once.
func (f Floor) Unlock(ctx context.Context) error { return f.run(ctx) }

func (f Floor) run(ctx context.Context) error {
	return floorScript.Run(ctx, f.C, []string{"floor"}).Err()
}
