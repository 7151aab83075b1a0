// Package jshost runs JavaScript defineScenario modules (scenario.mjs files
// written for the original JavaScript tool) in long-lived Node processes
// that the Go engine drives: setup, each actor and the invariant run on
// request, so that an attempt pays no Node start-up.
//
// # Files
//
// The ES modules in js/ are embedded: host.mjs, the process's entry point;
// hooks.mjs, module customization hooks (module.register, Node 20.6+) that
// resolve the original package name '@pavangupta352/interleave' and this
// project's '@pginterleave/interleave' (PackageNames) to shim.mjs; and
// shim.mjs with the modules it imports, which is also the npm package's
// module (scripts/npm-pack): defineScenario (checked as the original checks
// it), processActor, and the original's library functions, which drive the
// interleave binary (a scenario object defined in a test file runs in that
// test process through bridge.mjs). Start writes them to a private
// temporary directory that Close removes; the user installs nothing but
// their own dependencies.
//
// # Protocol
//
// Requests go to the process on fd 3 and responses come back on fd 4, one
// JSON object per line; stdout and stderr stay the scenario's own (its
// console.log), captured separately. The process answers once loaded:
//
//	{"id":0,"ok":true,"hello":{"name":..,"actors":[sorted ids],"modules":[file URLs],"node":"v20.x"}}
//	{"id":0,"ok":false,"error":{"kind":"load|pg-missing|package-missing|node-version","name":..,"message":..}}
//
// then serves requests concurrently (the actors of one attempt are async
// functions in the same process):
//
//	{"id":1,"op":"setup","db":{"connectionString":..,"options":{host,port,user,password,database,ssl}}}
//	{"id":2,"op":"actor","actor":"alice","connectionString":"postgres://..@127.0.0.1:PORT/db"}
//	{"id":4,"op":"abort","target":2}        (fires the actor's AbortSignal; no response)
//	{"id":5,"op":"invariant","db":{..},"results":[{"actor":"alice","status":"fulfilled","value":..}, ..]}
//
// The signals of actors that have returned fire when their attempt ends:
// after the invariant, or at the next setup when no invariant ran.
//
// Each answer is {"id":N,"ok":true} (with "value" for an actor that returned
// one, as JSON.stringify wrote it) or {"id":N,"ok":false,"error":{"kind":..,
// "name":..,"message":..,"code":..}} where kind is "throw", "assertion" (a
// node:assert AssertionError in the invariant) or "value" (an actor value
// JSON cannot hold). The process exits when fd 3 closes, so it never
// outlives the Go process; it runs in its own process group, which Close
// kills.
//
// # Processes
//
// A Host keys processes by the attempt's database name: each search worker
// owns one database for its whole life, so this is one Node process per
// worker, and the actors of an attempt share the process of its setup. A
// database that has not been seen for takeOverAfter is assumed finished
// (its worker closed); a new database takes its idle process over instead
// of starting another Node.
package jshost
