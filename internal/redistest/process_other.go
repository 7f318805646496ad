//go:build !linux

package redistest

import (
	"errors"
	"syscall"
	"time"
)

// sysProcAttr returns no special attributes where parent-death signals
// are not available; processes are still stopped in t.Cleanup.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// processCPU cannot tell this process's CPU time here.
func processCPU() (time.Duration, bool) { return 0, false }

// canWatchSockets reports whether tcpQueues works here.
const canWatchSockets = false

// tcpQueues needs /proc/net/tcp, which only Linux has.
func tcpQueues(local, remote int) (tx, rx int64, err error) {
	return 0, 0, errors.ErrUnsupported
}

// isStopped cannot tell whether a process is stopped here: it says it is.
func isStopped(int) (bool, error) { return true, nil }
