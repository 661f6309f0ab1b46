//go:build race

package scenarios

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
