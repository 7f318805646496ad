package redistest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
)

// This file holds the child's side of a child process: what a child
// started by [StartChild] calls to talk to its test.

// ChildPrintf writes one line, formatted as by fmt.Sprintf, to the child's
// stdout, where [Child.WaitLine] reads it. A trailing newline is added if
// missing. Each line is a single write to os.Stdout, which *os.File
// serialises, so lines from concurrent goroutines never interleave.
func ChildPrintf(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
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

// ChildAtoi returns s, an argument or input of a child process, as an
// int; when s is not one, it ends the child as [ChildFatalf] does, naming
// what s is.
func ChildAtoi(s, what string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ChildFatalf("%s: %v", what, err)
	}
	return n
}

// ChildLines returns a channel of the lines the test sends with
// [Child.Send], read from the child's stdin without their newline. The
// channel is closed at end of input. Every call returns the same channel,
// as there is one stdin per process.
func ChildLines() <-chan string { return stdinLines() }

// stdinLines starts, on first use, the one goroutine that reads the
// process's stdin, and returns its channel.
var stdinLines = sync.OnceValue(func() <-chan string {
	ch := make(chan string, 64)
	go readLines(os.Stdin, ch)
	return ch
})

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
