// Package netproxy is the per-actor PostgreSQL wire-protocol proxy. It passes
// start-up and authentication through, frames client messages in place into
// release units, asks a Gate before forwarding each unit upstream in one
// write, and streams server bytes back untouched while noting completions.
// In passthrough mode (Config.Passthrough, for `interleave proxy`) there is
// no gate: whole messages go upstream as they arrive, still recorded.
//
// Protocol reference: https://www.postgresql.org/docs/current/protocol-flow.html
// and https://www.postgresql.org/docs/current/protocol-message-formats.html.
package netproxy
