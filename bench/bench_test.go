package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBenchmark_runs_every_library_and_every_workload runs the benchmark
// for a fraction of a second per cell: child processes, a real
// redis-server, the table and the chart. Every library runs alone and on
// one key from 4 processes; every workload runs with the floor and one
// library of each client stack (go-redis, rueidis). It checks that every
// cell acquired, that no Lock or Unlock failed, that the counter parsed
// every byte, that every row has its ratio to the serial floor, and that
// the floor alone costs 2 commands per acquisition.
func TestBenchmark_runs_every_library_and_every_workload(t *testing.T) {
	requireRedis(t)
	const d = 100 * time.Millisecond
	rows, err := benchmark(options{duration: d, libs: "all", workloads: "uncontended,4x4-h1", quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	more, err := benchmark(options{duration: d, libs: "reentrant,rueidislock",
		workloads: "1x64-h0,4x4-h0,8x8-h0,16x1-h0,1x64-h1,8x8-h1,16x1-h1,keys1024", quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	rows = append(rows, more...)
	if want := 2*len(libraries) + 8*3; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	for _, r := range rows {
		if r.acqs == 0 {
			t.Errorf("%s on %s: no acquisition", r.lib, r.work.name)
		}
		if r.errors != 0 {
			t.Errorf("%s on %s: %d errors, first: %s", r.lib, r.work.name, r.errors, r.firstError)
		}
		if !(r.vsSerial > 0) {
			t.Errorf("%s on %s: vs serial = %v, want a ratio to the serial floor", r.lib, r.work.name, r.vsSerial)
		}
		if r.badBytes != 0 {
			t.Errorf("%s on %s: %d bytes were not RESP requests", r.lib, r.work.name, r.badBytes)
		}
		// Alone, the floor sends 2 commands per acquisition, plus 2 for a
		// last Lock that returned after the deadline and was not counted;
		// so it does in the middle half of the run, but for the cycle
		// under way at each end of it.
		if r.lib == floorLibrary.name && r.work.name == "uncontended" {
			if r.commands < int64(2*r.acqs) || r.commands > int64(2*r.acqs)+2 {
				t.Errorf("floor alone: %d commands for %d acquisitions, want 2 each (+2)", r.commands, r.acqs)
			}
			if !(r.cmdsPerAcq > 1.8 && r.cmdsPerAcq < 2.2) {
				t.Errorf("floor alone: %.3f commands per acquisition in the middle of the run, want 2", r.cmdsPerAcq)
			}
		}
	}
	var table bytes.Buffer
	writeTable(&table, rows)
	if n := strings.Count(table.String(), "\n"); n != len(rows)+2 {
		t.Errorf("table has %d lines, want %d:\n%s", n, len(rows)+2, table.String())
	}
	chart := filepath.Join(t.TempDir(), "p99.svg")
	if err := writeChart(chart, rows); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(chart); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("chart: %v, %d bytes without <svg", err, len(b))
	}
}
