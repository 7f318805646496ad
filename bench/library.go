package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// locker is one owner of one lock, as each library spells it.
type locker interface {
	// Lock waits until the lock is held or ctx ends.
	Lock(ctx context.Context) error
	// Unlock releases what Lock took.
	Unlock(ctx context.Context) error
}

// backend is a library opened in one process against one server: it makes
// lockers for names, and is closed when the process is done.
type backend interface {
	NewLocker(name string) locker
	Close() error
}

// library is one contender of the benchmark.
type library struct {
	name string
	// about says how the library is set up, for the README.
	about string
	// open connects to addr, counting the commands written into wc; conns is
	// how many goroutines of the process will use it at once.
	open func(addr string, conns int, wc *wireCounter) (backend, error)
}

// libraries lists every contender, in the order of the table.
var libraries = []library{
	floorLibrary,
	lockkitLibrary("reentrant"),
	lockkitCohortLibrary,
	lockkitLibrary("fair"),
	lockkitLibrary("spin"),
	lockkitLibrary("rwlock"),
	redsyncLibrary,
	redislockLibrary,
	rueidislockLibrary,
}

// libraryNamed returns the contender called name.
func libraryNamed(name string) (library, error) {
	for _, l := range libraries {
		if l.name == name {
			return l, nil
		}
	}
	return library{}, fmt.Errorf("unknown library %q (have %s)", name, strings.Join(libraryNames(), ", "))
}

// libraryNames returns the contenders' names, sorted.
func libraryNames() []string {
	var names []string
	for _, l := range libraries {
		names = append(names, l.name)
	}
	sort.Strings(names)
	return names
}
