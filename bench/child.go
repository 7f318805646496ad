package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// childFlag, as the first argument, makes the binary run one process of a
// cell instead of the whole benchmark; the second argument is the
// childSpec as JSON.
const childFlag = "-child"

// childSpec is what a child process is told to do.
type childSpec struct {
	Addr       string        `json:"addr"`
	Library    string        `json:"library"`
	Prefix     string        `json:"prefix"` // of every lock name of the cell
	Proc       int           `json:"proc"`   // index of this process in the cell
	Goroutines int           `json:"goroutines"`
	Keys       int           `json:"keys"`
	Hold       time.Duration `json:"hold"`
	Duration   time.Duration `json:"duration"`
}

// childResult is what a child process reports, as one JSON line on stdout.
type childResult struct {
	Acquisitions []int     `json:"acquisitions"` // per goroutine
	Waits        []float64 `json:"waits"`        // seconds, one per acquisition
	Commands     int64     `json:"commands"`     // written during the run
	BadBytes     int64     `json:"bad_bytes"`    // that did not parse as RESP
	Errors       int       `json:"errors"`
	FirstError   string    `json:"first_error,omitempty"`
	// WindowCommands were written, and WindowAcquisitions returned, in
	// the middle half of the run (see steadyWindow).
	WindowCommands     int64 `json:"window_commands"`
	WindowAcquisitions int   `json:"window_acquisitions"`
}

// The protocol between the parent and a child, one line each on the
// child's stdout and stdin:
//
//	child:  ready              (connected, every goroutine warmed up)
//	parent: go UNIXNANO        (start at that time)
//	child:  {result JSON}      (after start + duration and the last Unlock)
const (
	readyLine = "ready"
	goWord    = "go"
)

// runChild runs one process of a cell and returns its exit code.
func runChild(arg string) int {
	var spec childSpec
	if err := json.Unmarshal([]byte(arg), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "bench child: bad spec:", err)
		return 2
	}
	res, err := spec.run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		return 1
	}
	return 0
}

// run warms up, reports ready, waits for the start time from in, runs
// the loop in every goroutine until the deadline and returns the result.
func (s childSpec) run(in *os.File, out *os.File) (res *childResult, err error) {
	lib, err := libraryNamed(s.Library)
	if err != nil {
		return nil, err
	}
	var wc wireCounter
	be, err := lib.open(s.Addr, s.Goroutines, &wc)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := be.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	workers := make([]*worker, s.Goroutines)
	for i := range workers {
		workers[i] = &worker{spec: s, be: be, id: i, locks: map[int]locker{}}
	}
	if err := warmUp(workers); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, readyLine)
	start, err := readStart(in)
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Until(start))
	deadline := start.Add(s.Duration)
	from, to := steadyWindow(start, s.Duration)
	before := wc.commands.Load()
	var wg sync.WaitGroup
	// The window is where the two counts were read: a sleep can end late.
	var window [2]time.Time
	var windowCommands int64
	wg.Go(func() {
		time.Sleep(time.Until(from))
		window[0] = time.Now()
		at := wc.commands.Load()
		time.Sleep(time.Until(to))
		windowCommands = wc.commands.Load() - at
		window[1] = time.Now()
	})
	for _, w := range workers {
		wg.Go(func() { w.loop(deadline) })
	}
	wg.Wait()
	res = &childResult{Commands: wc.commands.Load() - before, WindowCommands: windowCommands, BadBytes: wc.bad.Load()}
	for _, w := range workers {
		res.Acquisitions = append(res.Acquisitions, len(w.waits))
		for _, got := range w.got {
			if !got.Before(window[0]) && got.Before(window[1]) {
				res.WindowAcquisitions++
			}
		}
		res.Waits = append(res.Waits, w.waits...)
		res.Errors += w.errors
		if res.FirstError == "" && w.firstErr != nil {
			res.FirstError = w.firstErr.Error()
		}
	}
	return res, nil
}

// steadyWindow returns the middle half of a run that starts at start and
// lasts d, where the commands per acquisition are counted: what a process
// does once (open its pub/sub connection, subscribe, the first wait of
// each goroutine) falls before it, and so do the acquisitions whose
// refused attempts came before the run; the waits still under way at the
// end, whose attempts count for no acquisition of the run, fall after it.
func steadyWindow(start time.Time, d time.Duration) (from, to time.Time) {
	return start.Add(d / 4), start.Add(d - d/4)
}

// readStart reads the parent's "go UNIXNANO" line.
func readStart(in *os.File) (time.Time, error) {
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil {
		return time.Time{}, fmt.Errorf("waiting for the start: %w", err)
	}
	word, ns, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, perr := strconv.ParseInt(ns, 10, 64)
	if word != goWord || perr != nil {
		return time.Time{}, fmt.Errorf("bad start line %q", line)
	}
	return time.Unix(0, n), nil
}

// warmUp makes every goroutine lock and unlock a name of its own, so that
// connections are open and scripts loaded before the clock starts. A cold
// first attempt can fail on a loaded machine (rueidislock gives each
// attempt 20 ms, then waits for the key to change), so each goroutine gets
// a few tries, each with a name of its own.
func warmUp(workers []*worker) error {
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Go(func() {
			for try := range warmUpTries {
				if errs[i] = w.warmUp(try); errs[i] == nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// warmUpTries is how many times warmUp tries, warmUpTimeout how long each
// try may take.
const (
	warmUpTries   = 5
	warmUpTimeout = 2 * time.Second
)

// warmUp locks and unlocks a name of the worker's own, once.
func (w *worker) warmUp(try int) error {
	ctx, cancel := context.WithTimeout(context.Background(), warmUpTimeout)
	defer cancel()
	l := w.be.NewLocker(fmt.Sprintf("%s:warm:%d:%d:%d", w.spec.Prefix, w.spec.Proc, w.id, try))
	if err := l.Lock(ctx); err != nil {
		return fmt.Errorf("warm-up lock: %w", err)
	}
	if err := l.Unlock(ctx); err != nil {
		return fmt.Errorf("warm-up unlock: %w", err)
	}
	return nil
}

// unlockTimeout bounds each Unlock, which runs on a context of its own.
const unlockTimeout = 5 * time.Second

// worker is one goroutine of a child: it owns one locker per name.
type worker struct {
	spec     childSpec
	be       backend
	id       int
	locks    map[int]locker // by key index
	waits    []float64      // seconds, one per acquisition
	got      []time.Time    // when each acquisition's Lock returned
	errors   int
	firstErr error
}

// loop locks, holds and unlocks until deadline. A wait starts when Lock is
// first called for an acquisition and ends when a call returns nil; a Lock
// that fails before the deadline is counted as an error and called again,
// with the wait going on. An acquisition counts if its Lock returned
// before the deadline; the wait still in progress at the deadline counts
// for nothing (a goroutine that never acquired is starved).
func (w *worker) loop(deadline time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	rng := rand.New(rand.NewPCG(uint64(w.spec.Proc), uint64(w.id)))
	for ctx.Err() == nil {
		k := 0
		if w.spec.Keys > 1 {
			k = rng.IntN(w.spec.Keys)
		}
		l := w.locker(k)
		began := time.Now()
		var err error
		for {
			if err = l.Lock(ctx); err == nil || ctx.Err() != nil {
				break
			}
			w.fail(err)
		}
		if err != nil {
			return // the deadline passed while waiting
		}
		got := time.Now()
		if got.After(deadline) {
			w.unlock(l)
			return
		}
		w.waits = append(w.waits, got.Sub(began).Seconds())
		w.got = append(w.got, got)
		if w.spec.Hold > 0 {
			time.Sleep(w.spec.Hold)
		}
		w.unlock(l)
	}
}

// locker returns the goroutine's locker of key k, made on first use.
func (w *worker) locker(k int) locker {
	l, ok := w.locks[k]
	if !ok {
		l = w.be.NewLocker(fmt.Sprintf("%s:k%d", w.spec.Prefix, k))
		w.locks[k] = l
	}
	return l
}

// unlock releases l on a context of its own.
func (w *worker) unlock(l locker) {
	ctx, cancel := context.WithTimeout(context.Background(), unlockTimeout)
	defer cancel()
	if err := l.Unlock(ctx); err != nil {
		w.fail(err)
	}
}

// fail counts an error and keeps the first.
func (w *worker) fail(err error) {
	w.errors++
	if w.firstErr == nil {
		w.firstErr = err
	}
}
