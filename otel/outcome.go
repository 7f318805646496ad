package otel

import "go.opentelemetry.io/otel/attribute"

// keyOutcome is the outcome attribute: how the wait, hold, renewal or
// watchdog round trip measured ended, one of the values below.
const keyOutcome = attribute.Key("outcome")

// The values of the outcome attribute.
const (
	outcomeAcquired = "acquired" // wait
	outcomeFailed   = "failed"   // wait, watchdog round trip
	outcomeReleased = "released" // hold
	outcomeLost     = "lost"     // hold, renewal
	outcomeRenewed  = "renewed"  // renewal
	outcomeRetry    = "retry"    // renewal
	outcomeOK       = "ok"       // watchdog round trip
)
