// Package export packages a recorded failure as an offline regression
// bundle: the artifact, the scenario program's sources with its module
// vendored, a binary built for the recording platform, a replay script, a
// README and a SHA-256 manifest of every file, which Verify checks without
// running anything.
package export
