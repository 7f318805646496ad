package main

import (
	"fmt"
	"io"
	"math"
	"time"
)

// writeTable prints the rows as a markdown table, one line per cell.
func writeTable(out io.Writer, rows []summary) {
	fmt.Fprintln(out, "| workload | shape | hold | library | acq/s | vs floor | vs serial | p50 wait | p99 wait | max wait | starved | Jain | cmds/acq | Redis CPU/acq | errors |")
	fmt.Fprintln(out, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		keys := ""
		if r.work.keys > 1 {
			keys = fmt.Sprintf(" on %d keys", r.work.keys)
		}
		fmt.Fprintf(out, "| %s | %s%s | %s | %s | %.0f | %s | %s | %s | %s | %s | %d/%d | %s | %s | %s | %d |\n",
			r.work.name, r.work.shape(), keys, holdText(r.work.hold), r.lib,
			r.opsPerSec, ratioText(r.vsFloor), ratioText(r.vsSerial),
			waitText(r.p50), waitText(r.p99), waitText(r.max),
			r.starved, r.work.contenders(), numText(r.jain, 3), numText(r.cmdsPerAcq, 2),
			cpuText(r.cpuPerAcq), r.errors)
	}
}

// writeErrors prints the first error of every cell that had any, and any
// bytes the command counter could not parse.
func writeErrors(out io.Writer, rows []summary) {
	for _, r := range rows {
		if r.errors > 0 {
			fmt.Fprintf(out, "- %s, %s: %d Lock/Unlock errors, first: %s\n", r.work.name, r.lib, r.errors, r.firstError)
		}
		if r.badBytes > 0 {
			fmt.Fprintf(out, "- %s, %s: %d written bytes were not RESP requests (cmds/acq is off)\n", r.work.name, r.lib, r.badBytes)
		}
	}
}

// writeSetup prints how each library that ran is set up.
func writeSetup(out io.Writer, libs []library) {
	fmt.Fprintln(out)
	for _, l := range libs {
		fmt.Fprintf(out, "- %s: %s\n", l.name, l.about)
	}
}

func holdText(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// waitText prints seconds as ms with three significant figures.
func waitText(s float64) string {
	if math.IsNaN(s) {
		return "–"
	}
	ms := s * 1e3
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f ms", ms)
	}
}

func ratioText(r float64) string {
	if math.IsNaN(r) {
		return "–"
	}
	return fmt.Sprintf("%.2f", r)
}

func numText(v float64, prec int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// cpuText prints seconds of CPU per acquisition in µs.
func cpuText(s float64) string {
	if math.IsNaN(s) {
		return "–"
	}
	return fmt.Sprintf("%.1f µs", s*1e6)
}
