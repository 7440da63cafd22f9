// Package spelling finds what a misspelt name was meant to be, for the
// "did you mean" of evalgate's messages: a flag, a command, a gate's
// variable, a key of a suite or of evalgate.yaml, a folder.
package spelling

import "strings"

// Nearest returns the candidate closest to name, within limit edits
// (Distance); a candidate equal to name but for case wins outright. It
// returns "" when none is that close, and the first of equally close
// candidates.
func Nearest(name string, candidates []string, limit int) string {
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c
		}
		if d := Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the number of insertions, deletions, substitutions and
// swaps of two neighbours that turn a into b (optimal string alignment),
// counted in bytes.
func Distance(a, b string) int {
	// Three rows of the table: two back, one back, this one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
