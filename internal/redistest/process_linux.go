package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sysProcAttr asks the kernel to SIGKILL every process the harness starts
// when the test binary goes away without running its cleanups (a test
// timeout panic, a crash, an interrupt), so no redis-server or child is
// left behind. The signal is tied to the starting OS thread; the Go runtime
// only retires a thread when a goroutine locked to it exits, which the
// harness never does.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processCPU returns the CPU time this process has used so far (user and
// system), and whether it could tell.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// canWatchSockets reports whether tcpQueues works here.
const canWatchSockets = true

// 127.0.0.1 as /proc/net/tcp writes it: the address as a 32-bit number in
// host byte order, little- or big-endian.
const (
	loopbackLE = "0100007F"
	loopbackBE = "7F000001"
)

// tcpQueues reads /proc/net/tcp and returns the queues of the established
// TCP socket on 127.0.0.1 from port local to port remote: tx is what was
// sent but not yet acknowledged by the peer's kernel, rx what arrived but
// the process owning the socket has not read yet.
func tcpQueues(local, remote int) (tx, rx int64, err error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Scan() // header
	for s.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue ...
		fields := strings.Fields(s.Text())
		if len(fields) < 5 || fields[3] != "01" { // 01: ESTABLISHED
			continue
		}
		if !isLoopbackPort(fields[1], local) || !isLoopbackPort(fields[2], remote) {
			continue
		}
		txHex, rxHex, _ := strings.Cut(fields[4], ":")
		tx, txErr := strconv.ParseInt(txHex, 16, 64)
		rx, rxErr := strconv.ParseInt(rxHex, 16, 64)
		if err := errors.Join(txErr, rxErr); err != nil {
			return 0, 0, fmt.Errorf("/proc/net/tcp: %q: %w", s.Text(), err)
		}
		return tx, rx, nil
	}
	if err := s.Err(); err != nil {
		return 0, 0, err
	}
	return 0, 0, fmt.Errorf("no established socket from 127.0.0.1:%d to 127.0.0.1:%d", local, remote)
}

// isLoopbackPort reports whether addr, an "ADDRESS:PORT" of /proc/net/tcp
// in hexadecimal, is 127.0.0.1:port.
func isLoopbackPort(addr string, port int) bool {
	ip, p, ok := strings.Cut(addr, ":")
	if !ok || (ip != loopbackLE && ip != loopbackBE) {
		return false
	}
	n, err := strconv.ParseInt(p, 16, 32)
	return err == nil && int(n) == port
}

// isStopped reports whether process pid is stopped by a signal: the state
// in /proc/PID/stat, after the command name in parentheses, is "T".
func isStopped(pid int) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return false, fmt.Errorf("/proc/%d/stat: no command name in %q", pid, b)
	}
	state := strings.Fields(string(b[i+1:]))
	return len(state) > 0 && state[0] == "T", nil
}
