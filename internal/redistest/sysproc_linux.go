package redistest

import "syscall"

// sysProcAttr asks the kernel to SIGKILL every process the harness starts
// when the test binary goes away without running its cleanups (a test
// timeout panic, a crash, an interrupt), so no redis-server or child is
// left behind. The signal is tied to the starting OS thread; the Go runtime
// only retires a thread when a goroutine locked to it exits, which the
// harness never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
