// Package internal holds what the lock packages share and users never import:
// sentinel errors, key and channel naming, owner ids, option validation and
// the wait loop that every pub/sub-woken lock runs.
package internal
