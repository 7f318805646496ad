package main

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// startDelay is how far ahead of "now" the parent sets the common start
// time, so that every child has read it before it comes.
const startDelay = 50 * time.Millisecond

// cellResult is what one library did in one workload, merged over its
// processes.
type cellResult struct {
	lib      string
	work     workload
	duration time.Duration
	// acquisitions per goroutine, over every process
	acquisitions []int
	waits        []float64 // seconds
	commands     int64
	badBytes     int64
	errors       int
	firstError   string
	redisCPU     float64 // seconds of server CPU during the run
	// commands written, and acquisitions made, in the middle half of the
	// run (see steadyWindow), over every process
	windowCommands     int64
	windowAcquisitions int
}

// runCell runs lib on w for d against the server at addr: it starts one
// child process per process of the workload, waits until every one is
// warmed up, gives them one start time, and merges their reports. admin
// reads the server's CPU time before the start and after the last report.
func runCell(exe string, addr string, admin *redis.Client, lib library, w workload, d time.Duration, prefix string) (*cellResult, error) {
	ctx := context.Background()
	children := make([]*child, 0, w.procs)
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	for p := range w.procs {
		spec := childSpec{Addr: addr, Library: lib.name, Prefix: prefix, Proc: p,
			Goroutines: w.goroutines, Keys: w.keys, Hold: w.hold, Duration: d}
		c, err := startChild(exe, spec)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}
	for _, c := range children {
		if err := c.expectReady(); err != nil {
			return nil, err
		}
	}
	cpu0, err := cpuSeconds(ctx, admin)
	if err != nil {
		return nil, err
	}
	start := time.Now().Add(startDelay)
	for _, c := range children {
		if _, err := fmt.Fprintf(c.stdin, "%s %d\n", goWord, start.UnixNano()); err != nil {
			return nil, fmt.Errorf("starting child %d: %w", c.cmd.Process.Pid, err)
		}
	}
	res := &cellResult{lib: lib.name, work: w, duration: d}
	for _, c := range children {
		r, err := c.result(d + time.Minute)
		if err != nil {
			return nil, err
		}
		res.acquisitions = append(res.acquisitions, r.Acquisitions...)
		res.waits = append(res.waits, r.Waits...)
		res.commands += r.Commands
		res.windowCommands += r.WindowCommands
		res.windowAcquisitions += r.WindowAcquisitions
		res.badBytes += r.BadBytes
		res.errors += r.Errors
		if res.firstError == "" {
			res.firstError = r.FirstError
		}
	}
	cpu1, err := cpuSeconds(ctx, admin)
	if err != nil {
		return nil, err
	}
	res.redisCPU = cpu1 - cpu0
	return res, nil
}
