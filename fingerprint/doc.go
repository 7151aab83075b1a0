// Package fingerprint says what makes a run repeatable and why a recording
// no longer applies: the scenario's sources and module files, the Go and
// Interleave versions, PostgreSQL's version and the settings that change
// behaviour, and the database after setup. The comparisons put every
// difference in words, for an exact replay that must refuse to run.
package fingerprint
