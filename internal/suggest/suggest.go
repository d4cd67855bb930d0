// Package suggest finds the valid name closest to a misspelt one, for the
// "did you mean" of error messages (zoo models and their parameters,
// cluster presets, file fields, what-if targets).
package suggest

import (
	"fmt"
	"strings"
)

// Closest returns the name of valid nearest to s in edit distance
// (see Distance, case-insensitive), or "" when none is near: the distance
// must be at most 2, and below half of s's length, so that a short or
// unrelated word gets no guess. Ties go to the first in valid.
func Closest(s string, valid []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, v := range valid {
		d := Distance(ls, strings.ToLower(v))
		if bestD < 0 || d < bestD {
			best, bestD = v, d
		}
	}
	if bestD < 0 || bestD == 0 || bestD > 2 || 2*bestD >= len([]rune(s)) {
		return ""
	}
	return best
}

// DidYouMean is `; did you mean "X"?` for the name of valid closest to
// s, or "" when none is near (see Closest).
func DidYouMean(s string, valid []string) string {
	if c := Closest(s, valid); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions and substitutions of runes and transpositions of
// two adjacent runes ("memroy" for "memory"), each costing 1.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
