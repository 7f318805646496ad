package redistest

import (
	"testing"

	"github.com/lockkit/lockkit"
)

// CloseWhileHeldUp closes c while s holds up a command of it, what: it
// waits until s holds one up, starts Close, and lets the command through
// once c is closed, so that the call that sent it gets its reply after
// Close began. It returns Close's result, to receive once that call
// returned.
func CloseWhileHeldUp(t testing.TB, c *lockkit.Client, s *Silence, what string) <-chan error {
	t.Helper()
	Eventually(t, Hang, what+" to be held up", func() bool { return s.Held() > 0 })
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	<-c.Done()
	s.Off()
	return closed
}
