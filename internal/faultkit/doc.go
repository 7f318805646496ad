// Package faultkit is the set-up that the fault-injection tests
// (internal/adminfault, internal/pausefault, internal/soak) share: one
// table of the lock kinds (kinds.go), the two sides of a test's Clients
// and the servers they lock on (side.go, env.go), the owners and waiters
// the tests drive (owner.go, wait.go) and the returns of the waiters'
// Locks (returns.go), the wait for subscribed pub/sub connections
// (subscribed.go), and the child processes that hold or wait for a lock
// in a process of their own (child.go, waiterchild.go, ownerchild.go).
//
// It imports every kind package, and takes a *testing.T in most of its
// functions: only tests import it, never the library.
package faultkit
