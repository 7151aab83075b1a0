// Package artifact is the versioned JSON record of an attempt: the schedule
// (every decision and choice), every released unit with what PostgreSQL
// answered, actor results, the outcome, the environment and the fingerprint
// an exact replay checks. It validates files it did not write (they are
// untrusted input) and writes atomically. It knows nothing of sockets.
package artifact
