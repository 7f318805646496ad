package redistest

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Environment variables through which StartChild tells the re-executed
// test binary which child to run and with which arguments.
const (
	envChild     = "LOCKKIT_REDISTEST_CHILD"
	envChildArgs = "LOCKKIT_REDISTEST_CHILD_ARGS"
)

// Children maps the names that [StartChild] takes to the entry points of
// child processes. An entry point receives the arguments given to
// StartChild and talks to the test through [ChildPrintf], [ChildLines] and
// [ChildFatalf].
type Children map[string]func(args []string)

// Main is the body of a package's TestMain; children holds the package's
// child entry points, nil if it starts none:
//
//	func TestMain(m *testing.M) {
//		redistest.Main(m, redistest.Children{"holder": holder})
//	}
//
// When the process was started by [StartChild] it runs the child named
// there and exits: with status 0 when the function returns, 1 with a
// message on stderr when it panics or calls [ChildFatalf], and 2 when
// children has no such name. Otherwise it runs the tests and, as
// goleak.VerifyTestMain does, fails a successful run if any goroutine
// outlives the tests (see [LeftBehind]).
func Main(m *testing.M, children Children) {
	if name, ok := os.LookupEnv(envChild); ok {
		os.Exit(children.run(name, os.Getenv(envChildArgs)))
	}
	code := m.Run()
	if code == 0 {
		if err := LeftBehind(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: Errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// DialProbeLinger bounds how long a goroutine of a closed go-redis client
// may outlive it: after failed dials (a killed server) its connection pool
// probes the server in a goroutine (ConnPool.tryDial) that sleeps 1 s
// between dials and sees the close only after its sleep.
const DialProbeLinger = 3 * time.Second

// LeftBehind returns what goleak.Find reports with opts once that has
// lasted DialProbeLinger, or nil as soon as no goroutine is left.
func LeftBehind(opts ...goleak.Option) error {
	deadline := time.Now().Add(DialProbeLinger)
	for {
		err := goleak.Find(opts...) // itself retrying for a moment
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// run runs the child called name with JSON-encoded arguments and returns
// the process exit status.
func (cs Children) run(name, encodedArgs string) (status int) {
	fn, ok := cs[name]
	if !ok {
		names := make([]string, 0, len(cs))
		for n := range cs {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "redistest: no child named %q; the package's TestMain gives redistest.Main %q\n",
			name, strings.Join(names, ", "))
		return 2
	}
	var args []string
	if err := json.Unmarshal([]byte(encodedArgs), &args); err != nil {
		fmt.Fprintf(os.Stderr, "redistest: child %q: bad arguments: %v\n", name, err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "redistest: child %q panicked: %v\n%s", name, r, debug.Stack())
			status = 1
		}
	}()
	fn(args)
	return 0
}
