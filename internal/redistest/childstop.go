package redistest

import (
	"syscall"
	"testing"
)

// Stop stops the child with SIGSTOP, as a long garbage-collection pause or
// a frozen virtual machine would, and returns once the kernel reports it
// stopped (where it can tell: on Linux): from then on the child runs no
// code, its timers included, until [Child.Continue]. Its connections stay
// open. A child stopped at the end of the test is killed all the same.
func (c *Child) Stop(t testing.TB) {
	t.Helper()
	c.proc.signal(syscall.SIGSTOP)
	Eventually(t, stopTimeout, "child "+c.name+" to stop", func() bool {
		stopped, err := isStopped(c.proc.pid())
		if err != nil {
			t.Fatalf("redistest: child %q (pid %d): %v%s", c.name, c.proc.pid(), err, c.report())
		}
		return stopped
	})
}

// Continue resumes the child stopped by [Child.Stop] with SIGCONT.
func (c *Child) Continue(t testing.TB) {
	t.Helper()
	c.proc.signal(syscall.SIGCONT)
}
