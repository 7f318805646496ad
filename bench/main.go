// Command bench measures lockkit's exclusive locks against other Go lock
// libraries for Redis and against a floor of two bare round trips, on one
// redis-server it starts itself on a free 127.0.0.1 port.
//
// For every workload it runs each library in turn (the order rotates from
// one workload to the next), each in child processes of its own: this
// binary run again with -child. See README.md for the columns.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == childFlag {
		os.Exit(runChild(os.Args[2]))
	}
	os.Exit(run(os.Args[1:]))
}

// options are the command's flags.
type options struct {
	duration  time.Duration
	libs      string
	workloads string
	chart     string
	quiet     bool
}

// run parses args, runs the benchmark and prints the table; it returns the
// exit code.
func run(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o options
	fs.DurationVar(&o.duration, "duration", 2*time.Second, "how long each library runs each workload")
	fs.StringVar(&o.libs, "libs", "all", "comma-separated libraries to run (the floor always runs): "+strings.Join(libraryNames(), ","))
	fs.StringVar(&o.workloads, "workloads", "all", "comma-separated workloads to run: "+strings.Join(workloadNames(), ","))
	fs.StringVar(&o.chart, "chart", "", "write a chart of p99 wait against contention to this file (.svg or .png)")
	fs.BoolVar(&o.quiet, "q", false, "do not print progress to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	libs, err := selectLibraries(o.libs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	rows, err := benchmark(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	fmt.Printf("%s, %d CPUs (%s), redis-server on 127.0.0.1, %v per cell\n\n",
		time.Now().Format("2006-01-02"), runtime.NumCPU(), cpuModel(), o.duration)
	writeTable(os.Stdout, rows)
	writeErrors(os.Stdout, rows)
	writeSetup(os.Stdout, libs)
	if o.chart != "" {
		if err := writeChart(o.chart, rows); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	return 0
}

// benchmark starts the server, runs every selected cell and returns the
// rows of the table in workload order, then library order.
func benchmark(o options) ([]summary, error) {
	libs, err := selectLibraries(o.libs)
	if err != nil {
		return nil, err
	}
	works, err := selectWorkloads(o.workloads)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	srv, err := startServer()
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	admin := redis.NewClient(&redis.Options{Addr: srv.addr})
	defer admin.Close()

	// cell runs lib on w on an emptied server, with progress on stderr.
	cell := func(lib library, w workload) (*cellResult, error) {
		if !o.quiet {
			fmt.Fprintf(os.Stderr, "%-12s %-12s ", w.name, lib.name)
		}
		if err := admin.FlushAll(context.Background()).Err(); err != nil {
			return nil, err
		}
		r, err := runCell(exe, srv.addr, admin, lib, w, o.duration, fmt.Sprintf("bench:%s:%s", w.name, lib.name))
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", lib.name, w.name, err)
		}
		if !o.quiet {
			fmt.Fprintf(os.Stderr, "%d acquisitions\n", sum(r.acquisitions))
		}
		return r, nil
	}

	// serial holds the serial floor's acquisitions per second by hold: the
	// floor run by one goroutine, which does one acquisition at a time.
	serial := map[time.Duration]float64{}
	var rows []summary
	for wi, w := range works {
		if _, ok := serial[w.hold]; !ok {
			r, err := cell(floorLibrary, serialWorkload(w.hold))
			if err != nil {
				return nil, err
			}
			serial[w.hold] = summarize(r, 0, 0).opsPerSec
		}
		results := map[string]*cellResult{}
		for li := range libs {
			lib := libs[(li+wi)%len(libs)] // rotate who goes first
			r, err := cell(lib, w)
			if err != nil {
				return nil, err
			}
			results[lib.name] = r
		}
		floor := summarize(results[floorLibrary.name], 0, 0)
		for _, lib := range libs {
			rows = append(rows, summarize(results[lib.name], floor.opsPerSec, serial[w.hold]))
		}
	}
	return rows, nil
}

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
