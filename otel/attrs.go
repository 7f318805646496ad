package otel

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/lockkit/lockkit"
)

// The attributes that name a lock (see lockAttrs), as documented in the
// package doc.
const (
	keyKind = attribute.Key("lock.kind")
	keyMode = attribute.Key("lock.mode")
	keyName = attribute.Key("lock.name")
)

// The attributes of lockkit.lock.acquisitions only.
const (
	keyContended = attribute.Key("lock.contended")
	keyReentry   = attribute.Key("lock.reentry")
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
