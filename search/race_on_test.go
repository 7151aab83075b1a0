//go:build race

package search

// raceDetector: the tests run under the race detector (slower).
const raceDetector = true
