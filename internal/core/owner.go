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
