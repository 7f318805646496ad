package redistest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Environment variables through which StartChild tells the re-executed
// test binary which child to run and with which arguments.
const (
	envChild     = "LOCKKIT_REDISTEST_CHILD"
	envChildArgs = "LOCKKIT_REDISTEST_CHILD_ARGS"
)

var (
	childrenMu sync.Mutex
	children   = map[string]func(args []string){}
)

// RegisterChild registers fn as the child entry point called name. Call it
// from init or a package-level variable initialiser in a _test.go file so
// that the registration exists both in the test process and in the child
// processes that re-execute it. fn receives the args given to
// [StartChild] and talks to the test through [ChildPrintf] and
// [ChildLines]. Registering a name twice panics.
func RegisterChild(name string, fn func(args []string)) {
	childrenMu.Lock()
	defer childrenMu.Unlock()
	if _, dup := children[name]; dup {
		panic(fmt.Sprintf("redistest: child %q registered twice", name))
	}
	children[name] = fn
}

// lookupChild returns the entry point registered as name.
func lookupChild(name string) (func(args []string), bool) {
	childrenMu.Lock()
	defer childrenMu.Unlock()
	fn, ok := children[name]
	return fn, ok
}

// runChild runs the child called name with JSON-encoded arguments and
// returns the process exit status.
func runChild(name, encodedArgs string) (status int) {
	fn, ok := lookupChild(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "redistest: no child registered as %q\n", name)
		return 2
	}
	var args []string
	if encodedArgs != "" {
		if err := json.Unmarshal([]byte(encodedArgs), &args); err != nil {
			fmt.Fprintf(os.Stderr, "redistest: child %q: bad arguments: %v\n", name, err)
			return 2
		}
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

var stdoutMu sync.Mutex

// ChildPrintf writes one line, formatted as by fmt.Sprintf, to the child's
// stdout, where [Child.WaitLine] reads it. A trailing newline is added if
// missing. Each line is written with a single unbuffered write, so lines
// from concurrent goroutines never interleave.
func ChildPrintf(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	_, _ = io.WriteString(os.Stdout, line)
}

// ChildFatalf writes a message, formatted as by fmt.Sprintf, to the
// child's stderr and exits the child with status 1, which makes
// [Child.Wait] fail and show the message.
func ChildFatalf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	_, _ = io.WriteString(os.Stderr, msg)
	os.Exit(1)
}

var (
	stdinOnce  sync.Once
	stdinLines chan string
)

// ChildLines returns a channel of the lines the test sends with
// [Child.Send], read from the child's stdin without their newline. The
// channel is closed at end of input. Every call returns the same channel.
func ChildLines() <-chan string {
	stdinOnce.Do(func() {
		stdinLines = make(chan string, 64)
		go readLines(os.Stdin, stdinLines)
	})
	return stdinLines
}

// readLines sends each line of r, without its newline, on ch and closes ch
// at end of input or on a read error.
func readLines(r io.Reader, ch chan<- string) {
	defer close(ch)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			ch <- strings.TrimSuffix(line, "\n")
		}
		if err != nil {
			return
		}
	}
}
