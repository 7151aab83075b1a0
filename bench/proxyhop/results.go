//go:build linux

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// results holds every measurement by path, then kind ("simple",
// "extended", "16 clients"), then round.
type results struct {
	order   []string
	byPath  map[string]map[string]map[int]measurement
	idleKiB map[string]float64
}

func newResults(paths []*path) *results {
	r := &results{byPath: map[string]map[string]map[int]measurement{}, idleKiB: map[string]float64{}}
	for _, p := range paths {
		r.order = append(r.order, p.name)
		r.byPath[p.name] = map[string]map[int]measurement{}
	}
	return r
}

func (r *results) add(path, kind string, round int, m measurement) {
	if r.byPath[path][kind] == nil {
		r.byPath[path][kind] = map[int]measurement{}
	}
	r.byPath[path][kind][round] = m
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// stat is the median over rounds of f(path's measurement, direct's in the
// same round).
func (r *results) stat(path, kind string, f func(m, direct measurement) float64) (float64, bool) {
	var xs []float64
	for round, m := range r.byPath[path][kind] {
		d, ok := r.byPath["direct"][kind][round]
		if !ok {
			continue
		}
		xs = append(xs, f(m, d))
	}
	return median(xs), len(xs) > 0
}

// pair is the median over rounds of f(a's measurement, b's) in the same
// round.
func (r *results) pair(a, b, kind string, f func(x, y measurement) float64) (float64, bool) {
	var xs []float64
	for round, m := range r.byPath[a][kind] {
		if o, ok := r.byPath[b][kind][round]; ok {
			xs = append(xs, f(m, o))
		}
	}
	return median(xs), len(xs) > 0
}

func latency(m, _ measurement) float64  { return m.latencyUS }
func average(m, _ measurement) float64  { return m.averageUS }
func added(m, d measurement) float64    { return m.latencyUS - d.latencyUS }
func ratio(m, d measurement) float64    { return m.latencyUS / d.latencyUS }
func tps(m, _ measurement) float64      { return m.tps }
func tpsRatio(m, d measurement) float64 { return m.tps / d.tps }
func cpu(m, _ measurement) float64      { return m.cpuUS }

func (r *results) print(w io.Writer, o options, version string, at time.Time) {
	fmt.Fprintf(w, "\nProxy hop, %s: PostgreSQL %s, pgbench SELECT 1, %d s per run, %d rounds, medians over rounds;\n", at.Format("2006-01-02 15:04"), version, o.seconds, o.rounds)
	fmt.Fprintf(w, "µs = the median transaction's latency (pgbench -l), with pgbench's average in parentheses;\n")
	fmt.Fprintf(w, "added = the path's median minus the direct connection's in the same round.\n\n")
	fmt.Fprintln(w, "| path | simple µs | added | × direct | extended µs | added | × direct | 16 clients tps | × direct | proxy CPU µs/query (simple) | idle KiB/conn |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range r.order {
		cells := []string{p}
		for _, kind := range []string{"simple", "extended"} {
			l, ok := r.stat(p, kind, latency)
			if !ok {
				cells = append(cells, "", "", "")
				continue
			}
			a, _ := r.stat(p, kind, added)
			x, _ := r.stat(p, kind, ratio)
			avg, _ := r.stat(p, kind, average)
			lat := fmt.Sprintf("%.1f (%.0f)", l, avg)
			if p == "direct" {
				cells = append(cells, lat, "", "1.00")
			} else {
				cells = append(cells, lat, fmt.Sprintf("%+.1f", a), fmt.Sprintf("%.2f", x))
			}
		}
		if t, ok := r.stat(p, "16 clients", tps); ok {
			x, _ := r.stat(p, "16 clients", tpsRatio)
			cells = append(cells, fmt.Sprintf("%.0f", t), fmt.Sprintf("%.2f", x))
		} else {
			cells = append(cells, "n/a", "")
		}
		if c, ok := r.stat(p, "simple", cpu); ok && p != "direct" && c > 0 {
			cells = append(cells, fmt.Sprintf("%.1f", c))
		} else {
			cells = append(cells, "")
		}
		if k, ok := r.idleKiB[p]; ok {
			cells = append(cells, fmt.Sprintf("%.1f", k))
		} else {
			cells = append(cells, "")
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	r.printTargets(w)
}

// printTargets compares Interleave with PgBouncer round by round.
func (r *results) printTargets(w io.Writer) {
	const bouncer, pass, capt, gated = "pgbouncer (session)", "interleave passthrough", "interleave passthrough+capture", "interleave gated (sched)"
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Targets (medians of per-round comparisons):")
	for _, p := range []string{pass, capt} {
		for _, kind := range []string{"simple", "extended"} {
			d, ok := r.pair(p, bouncer, kind, func(x, y measurement) float64 { return x.latencyUS - y.latencyUS })
			if !ok {
				continue
			}
			verdict := "met"
			if d > 0 {
				verdict = fmt.Sprintf("NOT met by %.1f µs", d)
			}
			fmt.Fprintf(w, "- %s, %s: added latency minus PgBouncer's = %+.1f µs: %s\n", p, kind, d, verdict)
		}
	}
	for _, p := range []string{pass, capt} {
		if x, ok := r.pair(p, bouncer, "16 clients", tpsRatio); ok {
			verdict := "met"
			if x < 1 {
				verdict = fmt.Sprintf("NOT met (%.0f%% short)", (1-x)*100)
			}
			fmt.Fprintf(w, "- %s, 16 clients: throughput / PgBouncer's = %.2f: %s\n", p, x, verdict)
		}
	}
	for _, kind := range []string{"simple", "extended"} {
		if x, ok := r.pair(gated, pass, kind, ratio); ok {
			verdict := "met"
			if x > 1.2 {
				verdict = "NOT met"
			}
			fmt.Fprintf(w, "- gated / passthrough per unit, %s: %.2f (target ≤ 1.2): %s\n", kind, x, verdict)
		}
	}
}
