// Package exampletest runs the example programs from their tests: each
// program's test binary re-runs itself as the program, embedded or
// against a real redis-server the test starts.
package exampletest

import (
	"os"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// child is the name the test binary is re-run under to be the program.
const child = "main"

// Main is the body of an example's TestMain: main is the program's main
// function, run in a child process by [Run]. The tests themselves fail if
// a goroutine outlives them.
func Main(m *testing.M, main func()) {
	redistest.Main(m, redistest.Children{child: func(args []string) {
		os.Args = append([]string{os.Args[0]}, args...)
		main()
	}})
}

// Run runs the program with args, on its embedded Redis and then on a
// real redis-server given with -redis, each in a subtest, and hands check
// the running program and the real server (nil for the embedded one).
// The program must exit with status 0 once check returns.
func Run(t *testing.T, check func(t *testing.T, p *redistest.Child, srv *redistest.Server), args ...string) {
	t.Run("embedded", func(t *testing.T) {
		p := redistest.StartChild(t, child, args...)
		check(t, p, nil)
		p.Wait(t, redistest.Hang)
	})
	t.Run("redis-server", func(t *testing.T) {
		srv := redistest.StartServer(t)
		p := redistest.StartChild(t, child, append([]string{"-redis", srv.Addr()}, args...)...)
		check(t, p, srv)
		p.Wait(t, redistest.Hang)
	})
}
