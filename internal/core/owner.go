package core

import (
	"strconv"
	"sync/atomic"

	"github.com/google/uuid"
)

var (
	processID  = uuid.NewString()
	ownerSeq   atomic.Uint64
	unlockSeq  atomic.Uint64
	attemptSeq atomic.Uint64
	forceSeq   atomic.Uint64
)

// NewOwner returns an owner id unique across processes: this process's
// UUID and a counter.
func NewOwner() string {
	return processID + ":" + strconv.FormatUint(ownerSeq.Add(1), 10)
}

// newUnlockID returns an unlock id unique across processes, so that holders
// sharing an owner id never mistake each other's unlocks for retries.
func newUnlockID() string {
	var n [20]byte
	return processID + ":u" + string(strconv.AppendUint(n[:0], unlockSeq.Add(1), 10))
}

// newAttemptID returns the id of one acquire, unique across processes, so
// that a script re-sent by the client is told from a new acquire.
func newAttemptID() string {
	var n [20]byte
	return processID + ":a" + string(strconv.AppendUint(n[:0], attemptSeq.Add(1), 10))
}

// ForceArgs returns the first arguments of a ForceUnlock's script: a force
// id unique across processes, so that a script re-sent by the client
// reports the holds its first run removed, and how long the id is
// remembered (ReleaseWindow, in ms); the script's own arguments follow.
func ForceArgs(args ...any) []any {
	var n [20]byte
	id := processID + ":f" + string(strconv.AppendUint(n[:0], forceSeq.Add(1), 10))
	return append([]any{id, ReleaseWindow.Milliseconds()}, args...)
}
