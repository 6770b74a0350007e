package sqllogic

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// maxDiffCells bounds the LCS table; larger inputs fall back to showing
// the differing middle as one replaced block.
const maxDiffCells = 4 << 20

// editOp is one line of an edit script: ' ' kept, '-' expected only,
// '+' actual only.
type editOp struct {
	op   byte
	text string
}

// unifiedDiff returns a unified-style diff from expected to actual, or ""
// when they are equal.
func unifiedDiff(expected, actual []string) string {
	ops := editScript(expected, actual)
	changed := false
	for _, o := range ops {
		changed = changed || o.op != ' '
	}
	if !changed {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- expected\n+++ actual\n")
	for _, h := range hunks(ops) {
		writeHunk(&b, ops, h)
	}
	return b.String()
}

// editScript computes a shortest edit script by longest common
// subsequence over the lines between the common prefix and suffix.
func editScript(a, b []string) []editOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []editOp
	for _, l := range a[:pre] {
		ops = append(ops, editOp{' ', l})
	}
	ops = append(ops, lcsScript(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, editOp{' ', l})
	}
	return ops
}

// lcsScript diffs a and b with a dynamic-programming LCS table.
func lcsScript(a, b []string) []editOp {
	var ops []editOp
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, editOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, editOp{'+', l})
		}
		return ops
	}
	// n[i][j] is the LCS length of a[i:] and b[j:].
	n := make([][]int, len(a)+1)
	for i := range n {
		n[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				n[i][j] = n[i+1][j+1] + 1
			} else {
				n[i][j] = max(n[i+1][j], n[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, editOp{' ', a[i]})
			i++
			j++
		case j == len(b) || (i < len(a) && n[i+1][j] >= n[i][j+1]):
			ops = append(ops, editOp{'-', a[i]})
			i++
		default:
			ops = append(ops, editOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// hunks returns [start, end) ranges of ops, each a group of changes with
// up to diffContext kept lines around it.
func hunks(ops []editOp) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].op == ' ' {
			continue
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			k := end
			for k < len(ops) && ops[k].op == ' ' {
				k++
			}
			if k == len(ops) || k-end > 2*diffContext {
				end = min(end+diffContext, len(ops))
				break
			}
			end = k
		}
		if n := len(out); n > 0 && out[n-1][1] >= start {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
		i = end - 1
	}
	return out
}

// writeHunk writes one "@@ -l,n +l,n @@" hunk of ops[h[0]:h[1]].
func writeHunk(b *strings.Builder, ops []editOp, h [2]int) {
	aLine, bLine := 1, 1
	for _, o := range ops[:h[0]] {
		if o.op != '+' {
			aLine++
		}
		if o.op != '-' {
			bLine++
		}
	}
	aN, bN := 0, 0
	for _, o := range ops[h[0]:h[1]] {
		if o.op != '+' {
			aN++
		}
		if o.op != '-' {
			bN++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
	for _, o := range ops[h[0]:h[1]] {
		b.WriteByte(o.op)
		b.WriteString(o.text)
		b.WriteByte('\n')
	}
}

// hunkRange prints a unified-diff range; an empty range names the line
// before it, as diff(1) does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
