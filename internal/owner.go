package internal

import (
	"strconv"
	"sync/atomic"

	"github.com/google/uuid"
)

var (
	processID = uuid.NewString()
	ownerSeq  atomic.Uint64
)

// NewOwner returns an owner id unique across processes: this process's UUID
// and a counter.
func NewOwner() string {
	return processID + ":" + strconv.FormatUint(ownerSeq.Add(1), 10)
}
