package main

import (
	"math"
	"slices"
)

// summary is the row of the table for one cell.
type summary struct {
	lib        string
	work       workload
	acqs       int
	opsPerSec  float64
	vsFloor    float64 // opsPerSec / the floor's opsPerSec in the same workload; NaN without a floor
	vsSerial   float64 // opsPerSec / the serial floor's with the same hold (serialWorkload); NaN without one
	p50, p99   float64 // seconds of wait
	max        float64
	starved    int     // goroutines with no acquisition
	jain       float64 // Jain's fairness index over per-goroutine acquisitions
	commands   int64   // written during the whole run
	cmdsPerAcq float64 // in the middle half of the run (see steadyWindow)
	cpuPerAcq  float64 // seconds of Redis CPU per acquisition
	errors     int
	firstError string
	badBytes   int64
}

// summarize computes a cell's row; floorOps is the floor's acquisitions
// per second in the same workload and serialOps the serial floor's with
// the same hold, each 0 when unknown.
func summarize(r *cellResult, floorOps, serialOps float64) summary {
	s := summary{lib: r.lib, work: r.work, commands: r.commands, errors: r.errors, firstError: r.firstError, badBytes: r.badBytes}
	for _, a := range r.acquisitions {
		s.acqs += a
		if a == 0 {
			s.starved++
		}
	}
	s.opsPerSec = float64(s.acqs) / r.duration.Seconds()
	s.vsFloor, s.vsSerial = ratio(s.opsPerSec, floorOps), ratio(s.opsPerSec, serialOps)
	w := slices.Clone(r.waits)
	slices.Sort(w)
	s.p50, s.p99 = quantile(w, 0.50), quantile(w, 0.99)
	if len(w) > 0 {
		s.max = w[len(w)-1]
	}
	s.jain = jain(r.acquisitions)
	s.cmdsPerAcq, s.cpuPerAcq = math.NaN(), math.NaN()
	if s.acqs > 0 {
		s.cpuPerAcq = r.redisCPU / float64(s.acqs)
	}
	if r.windowAcquisitions > 0 {
		s.cmdsPerAcq = float64(r.windowCommands) / float64(r.windowAcquisitions)
	}
	return s
}

// ratio returns ops / base, NaN when base is unknown (0).
func ratio(ops, base float64) float64 {
	if base <= 0 {
		return math.NaN()
	}
	return ops / base
}

// quantile returns the q-quantile of sorted (nearest rank), NaN when empty.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// jain returns Jain's fairness index (Σx)² / (n·Σx²): 1 when every
// goroutine acquired as often as every other, 1/n when one took all; 0
// when none acquired.
func jain(x []int) float64 {
	var sum, sq float64
	for _, v := range x {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(x)) * sq)
}
