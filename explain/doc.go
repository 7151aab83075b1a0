// Package explain says what went wrong in a failing order: it builds the
// dependency graph between the committed transactions of the order
// (write-write, write-read and read-write dependencies on the same rows
// where the SQL names them, on the same relations otherwise), finds the
// shortest cycle and names the anomaly in engineers' and Adya's terms. It
// holds the data the engine fills by replay (the critical pair, the runs at
// stronger isolation levels) and the verdict drawn from them; it never
// prints and never runs anything itself.
package explain
