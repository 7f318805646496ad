//go:build !linux

package redistest

import "syscall"

// sysProcAttr returns no special attributes where parent-death signals
// are not available; processes are still stopped in t.Cleanup.
func sysProcAttr() *syscall.SysProcAttr { return nil }
