package otel

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/lockkit/lockkit"
)

// The attribute keys, as documented in the package doc.
const (
	keyKind      = attribute.Key("lock.kind")
	keyMode      = attribute.Key("lock.mode")
	keyName      = attribute.Key("lock.name")
	keyContended = attribute.Key("lock.contended")
	keyReentry   = attribute.Key("lock.reentry")
	keyOutcome   = attribute.Key("outcome")
)

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

// rwKind is the [lockkit.LockInfo.Kind] of read-write locks, the one kind
// whose measurements carry lock.mode.
const rwKind = "rwlock"

// lockAttrs returns the attributes that name lock l: lock.kind, lock.mode
// for an rwlock, and lock.name when withName is set, followed by extra.
func lockAttrs(l lockkit.LockInfo, withName bool, extra ...attribute.KeyValue) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 3+len(extra))
	kv = append(kv, keyKind.String(l.Kind))
	if l.Kind == rwKind {
		if l.Read {
			kv = append(kv, keyMode.String("read"))
		} else {
			kv = append(kv, keyMode.String("write"))
		}
	}
	if withName {
		kv = append(kv, keyName.String(l.Name))
	}
	return append(kv, extra...)
}
