package scenario

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff of a and b by lines, with three lines
// of context ("" when they are equal).
func unifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		ai, bi := ops[start].a, ops[start].b
		na, nb := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(ai, na), hunkRange(bi, nb))
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffOp is one line of the edit script; a and b are the line indices
// (from 0) in each input where it applies.
type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int
}

// diffLines computes a shortest edit script: common prefix and suffix, then
// a longest common subsequence of the middle (replaced wholesale when the
// middle is too large to compare line by line).
func diffLines(x, y []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(x) && p < len(y) && x[p] == y[p] {
		ops = append(ops, diffOp{' ', x[p], p, p})
		p++
	}
	s := 0
	for s < len(x)-p && s < len(y)-p && x[len(x)-1-s] == y[len(y)-1-s] {
		s++
	}
	mx, my := x[p:len(x)-s], y[p:len(y)-s]
	if len(mx)*len(my) > 16<<20 {
		for i, l := range mx {
			ops = append(ops, diffOp{'-', l, p + i, p})
		}
		for j, l := range my {
			ops = append(ops, diffOp{'+', l, p + len(mx), p + j})
		}
	} else {
		// lcs[i][j] is the LCS length of mx[i:] and my[j:].
		lcs := make([][]int32, len(mx)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(my)+1)
		}
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				ops = append(ops, diffOp{' ', mx[i], p + i, p + j})
				i++
				j++
			case i < len(mx) && (j == len(my) || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, diffOp{'-', mx[i], p + i, p + j})
				i++
			default:
				ops = append(ops, diffOp{'+', my[j], p + i, p + j})
				j++
			}
		}
	}
	for k := 0; k < s; k++ {
		ops = append(ops, diffOp{' ', x[len(x)-s+k], len(x) - s + k, len(y) - s + k})
	}
	return ops
}
