package redistest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A port given to a Server stays claimed until the test that started the
// server ends, in a file named for the port in a directory that every
// process of the tests shares. A server that a test kills keeps its port
// that way: a server that another test process starts meanwhile does not
// take it (the killed server's clients would reach that one), and Restart
// finds it free. A claim of a process that is gone is stale and taken
// over.

// claimDir returns the directory of the claims.
func claimDir() string {
	return filepath.Join(os.TempDir(), "lockkit-redistest-ports")
}

// claim claims port for this process and reports whether it got it:
// false when a live process (this one included) holds it.
func claim(port int) (bool, error) {
	dir := claimDir()
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return false, err
	}
	path := filepath.Join(dir, strconv.Itoa(port))
	for range 2 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			_, err = f.WriteString(strconv.Itoa(os.Getpid()))
			return true, errors.Join(err, f.Close())
		}
		if !errors.Is(err, fs.ErrExist) {
			return false, err
		}
		if live(path) {
			return false, nil
		}
		// Stale: its process is gone.
		_ = os.Remove(path)
	}
	return false, nil
}

// live reports whether the claim in path is held by a running process. A
// claim being written (no pid yet) counts as live.
func live(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return true
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// unclaim gives up this process's claim of port.
func unclaim(port int) {
	_ = os.Remove(filepath.Join(claimDir(), strconv.Itoa(port)))
}

// claimPort claims port and, with bus, its cluster bus port, and reports
// whether it got both (it keeps neither otherwise).
func claimPort(port int, bus bool) (bool, error) {
	ok, err := claim(port)
	if !ok || err != nil || !bus {
		return ok, err
	}
	if ok, err = claim(port + clusterBusOffset); !ok || err != nil {
		unclaim(port)
	}
	return ok, err
}

// releasePort gives up the claims claimPort made.
func releasePort(port int, bus bool) {
	unclaim(port)
	if bus {
		unclaim(port + clusterBusOffset)
	}
}
