package soak_test

import "github.com/lockkit/lockkit/internal/faultkit"

// kinds are the kinds of the soak: the lock kinds, whose cohort keeps its
// hold in memory for at most a quarter of the lease, and a latch, whose
// rounds are Awaits and a count-down.
func kinds() []faultkit.Kind {
	return append(faultkit.Kinds(faultkit.Config{HandoffHold: lease / 4}), faultkit.Latch())
}

// observed reports whether k is an election, which a side's observer
// watches across the whole loop.
func observed(k faultkit.Kind) bool { return k.Name == "election" }
