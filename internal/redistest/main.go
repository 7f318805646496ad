package redistest

import (
	"os"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// mainCalled records that the test binary's TestMain went through Main,
// which StartChild needs so that a re-executed binary runs the child.
var mainCalled atomic.Bool

// Main is the body of a package's TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
// When the process was started by [StartChild] it runs the registered child
// function and exits: with status 0 when the function returns, or 1 with a
// message on stderr when it panics or calls [ChildFatalf]. Otherwise it runs
// the tests under goleak.VerifyTestMain, which fails the run if any
// goroutine outlives the tests.
func Main(m *testing.M) {
	if name, ok := os.LookupEnv(envChild); ok {
		os.Exit(runChild(name, os.Getenv(envChildArgs)))
	}
	mainCalled.Store(true)
	goleak.VerifyTestMain(m)
}
