package adminfault_test

import "github.com/lockkit/lockkit/internal/faultkit"

// kinds are the lock kinds of the tests, in this process and in the
// child's: a cohort keeps its hold in memory for at most a quarter of
// the lease.
func kinds() []faultkit.Kind { return faultkit.Kinds(faultkit.Config{HandoffHold: lease / 4}) }
