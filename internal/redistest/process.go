package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// stopTimeout bounds every wait for a process to exit after it was
// signalled. It is generous: exceeding it means something is badly wrong.
const stopTimeout = 10 * time.Second

// process is one started operating-system process together with the
// goroutine that reaps it.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd.Wait has returned
	err  error         // result of cmd.Wait; read only after done is closed
}

// startProcess starts cmd and a goroutine that waits for it, so that the
// process never lingers as a zombie and its exit is observable on done.
func startProcess(cmd *exec.Cmd) (*process, error) {
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid returns the operating-system process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has exited and been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process unless it has already been reaped.
// os.Process signals through a pidfd where the kernel supports it, so a
// reaped process's recycled pid is never hit.
func (p *process) signal(sig os.Signal) {
	if !p.exited() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// wait waits up to timeout for the process to exit.
func (p *process) wait(timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("process %d (%s) did not exit within %v", p.pid(), p.cmd.Path, timeout)
	}
}

// kill sends SIGKILL and waits for the process to be reaped.
func (p *process) kill() error {
	p.signal(os.Kill)
	return p.wait(stopTimeout)
}

// status describes how the process ended; it must be called after done is
// closed.
func (p *process) status() string {
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}
