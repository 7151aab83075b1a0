// Package sched decides, at quiescence, which pending release unit of which
// actor reaches PostgreSQL next. It implements netproxy's Gate, tracks
// completions and lock waits (asking PostgreSQL itself), and records every
// decision and unit of one attempt. It knows nothing of search or JSON.
package sched
