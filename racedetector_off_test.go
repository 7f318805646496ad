//go:build !race

package lockkit_test

// raceDetector reports whether the tests run with the race detector.
const raceDetector = false
