package core

import (
	"time"

	"github.com/lockkit/lockkit/internal/rediserr"
)

// transientPrefixes start the error replies of a server that cannot serve
// a script for a moment: a replica not yet promoted, a master without its
// replicas, a Cluster settling a failover, a server loading its data, a
// Cluster slot moving to another master (the redirections a Cluster
// client gave up following: its next try goes to the slot's new node).
var transientPrefixes = []string{"READONLY", "MASTERDOWN", "CLUSTERDOWN", "LOADING", "TRYAGAIN", "MOVED", "ASK"}

// transientRetry spaces the attempts of a waiter that got transient
// errors: from 10 ms, doubling, up to 1 s.
var transientRetry = Backoff{Floor: 10 * time.Millisecond, Cap: time.Second}

// Transient reports whether err is one that a restart, a failover or a
// dropped connection causes for a moment: a network error, an unexpected
// end of a reply, no connection to be had in time, or a reply saying the
// server cannot serve yet. The same request may succeed a moment later.
func Transient(err error) bool {
	return rediserr.Unreachable(err) || rediserr.Reply(err, transientPrefixes...)
}
