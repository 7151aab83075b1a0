// Package search explores schedules: which pending unit to release at each
// decision. A schedule is named by its choices (decisions that differ from
// the FIFO default); the search enumerates choice prefixes fewest choices
// first, deduplicates them, applies budgets and reports whether the
// frontier was exhausted or a budget stopped it. It also minimizes a
// failing schedule's choices.
package search
