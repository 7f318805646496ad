package pausefault_test

import (
	"time"

	"github.com/lockkit/lockkit/internal/faultkit"
)

// fairWaiterTimeout is the waiter timeout of the fair locks (the fair
// kind, the fair member of the multi-lock); a semaphore's is always
// semaphoreWaiterTimeout (README, "Semaphores").
const (
	fairWaiterTimeout      = time.Second
	semaphoreWaiterTimeout = 5 * time.Second
)

// kinds are the lock kinds of the tests, in this process and in the
// child's: a cohort keeps its hold in memory for at most 250 ms, and the
// fair locks have the waiter timeout fairWaiterTimeout.
func kinds() []faultkit.Kind {
	return faultkit.Kinds(faultkit.Config{HandoffHold: 250 * time.Millisecond, FairWaiterTimeout: fairWaiterTimeout})
}

// lapse is, for the kinds whose waiters hold a place in a queue in Redis,
// how long after the last attempt of a waiter first in line that never
// comes the others may wait: a release wakes it alone, and its place
// lapses a waiter timeout after its last attempt. A fair waiter behind it
// caps its sleep at that moment; a semaphore's finds the place lapsed at
// its next attempt, which it makes every third of the waiter timeout
// (README, "The fair lock" and "Semaphores"). 0 for the other kinds.
func lapse(k faultkit.Kind) time.Duration {
	switch k.Name {
	case "fair":
		return fairWaiterTimeout
	case "semaphore":
		return semaphoreWaiterTimeout + semaphoreWaiterTimeout/3
	}
	return 0
}
