package cli

import (
	"fmt"
	"io"
	"strings"

	"placesim/engine/llm"
)

// printExposedByLink prints where the exposed DP and PP time went, per
// link class: "  DP by link  NVLink 0.000 s, adapters 0.027 s, leaf
// uplinks 0.000 s (groups cross adapters)".
func printExposedByLink(w io.Writer, j *llm.Job, r *llm.Result) {
	e, err := r.ExposedByLink(j)
	if err != nil {
		fmt.Fprintf(w, "exposed by link     %v\n", err)
		return
	}
	line := func(v []float64) string {
		var parts []string
		for i, c := range llm.LinkClasses() {
			parts = append(parts, fmt.Sprintf("%s %.3f s", c, v[i]))
		}
		return strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "  DP by link        %s (rank %d's groups cross %s)\n", line(e.DP[:]), e.Rank, e.DPClass)
	how := ""
	if !e.Exact {
		how = "; split by incoming transfer time"
	}
	fmt.Fprintf(w, "  PP by link        %s (sends in over %s, out over %s%s)\n", line(e.PP[:]), e.PPFrom, e.PPTo, how)
}
