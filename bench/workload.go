package main

import (
	"fmt"
	"strings"
	"time"
)

// workload is one way of using locks: procs processes of goroutines
// goroutines each, every goroutine locking one of keys names in a loop and
// holding each lock for hold before unlocking it.
type workload struct {
	name       string
	procs      int
	goroutines int // per process
	keys       int // 1: every goroutine contends for the same name
	hold       time.Duration
}

// contenders returns how many goroutines run the workload in all.
func (w workload) contenders() int { return w.procs * w.goroutines }

// shape returns "P×G", processes × goroutines per process.
func (w workload) shape() string { return fmt.Sprintf("%d×%d", w.procs, w.goroutines) }

// workloads lists every workload, in the order of the table.
var workloads = []workload{
	{name: "uncontended", procs: 1, goroutines: 1, keys: 1},
	{name: "1x64-h0", procs: 1, goroutines: 64, keys: 1},
	{name: "4x4-h0", procs: 4, goroutines: 4, keys: 1},
	{name: "8x8-h0", procs: 8, goroutines: 8, keys: 1},
	{name: "16x1-h0", procs: 16, goroutines: 1, keys: 1},
	{name: "1x64-h1", procs: 1, goroutines: 64, keys: 1, hold: time.Millisecond},
	{name: "4x4-h1", procs: 4, goroutines: 4, keys: 1, hold: time.Millisecond},
	{name: "8x8-h1", procs: 8, goroutines: 8, keys: 1, hold: time.Millisecond},
	{name: "16x1-h1", procs: 16, goroutines: 1, keys: 1, hold: time.Millisecond},
	{name: "keys1024", procs: 1, goroutines: 64, keys: 1024},
}

// serialWorkload is the workload of the serial floor for hold: one
// goroutine of one process, on one key, so one acquisition at a time, each
// two round trips and the hold as it really lasts. It is about what a lock
// reaches at best with that hold when a release wakes the next holder, who
// then takes the lock in one round trip.
func serialWorkload(hold time.Duration) workload {
	return workload{name: "serial-" + holdText(hold), procs: 1, goroutines: 1, keys: 1, hold: hold}
}

// workloadNames returns the workloads' names in table order.
func workloadNames() []string {
	var names []string
	for _, w := range workloads {
		names = append(names, w.name)
	}
	return names
}

// selectWorkloads returns the workloads named in the comma-separated list
// sel, in table order; "all" or "" selects every one.
func selectWorkloads(sel string) ([]workload, error) {
	if sel == "" || sel == "all" {
		return workloads, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(sel, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []workload
	for _, w := range workloads {
		if want[w.name] {
			out = append(out, w)
			delete(want, w.name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("unknown workload %q (have %s)", n, strings.Join(workloadNames(), ", "))
	}
	return out, nil
}

// selectLibraries returns the libraries named in the comma-separated list
// sel, in table order; "all" or "" selects every one. The floor is always
// included, since every ratio is taken to it.
func selectLibraries(sel string) ([]library, error) {
	if sel == "" || sel == "all" {
		return libraries, nil
	}
	want := map[string]bool{floorLibrary.name: true}
	for _, n := range strings.Split(sel, ",") {
		n = strings.TrimSpace(n)
		if _, err := libraryNamed(n); err != nil {
			return nil, err
		}
		want[n] = true
	}
	var out []library
	for _, l := range libraries {
		if want[l.name] {
			out = append(out, l)
		}
	}
	return out, nil
}
