package cli

import (
	"fmt"
	"io"
)

// printWarnings writes a lenient import's warnings (unsupported ONNX ops
// replaced by placeholders, unknown msr-fiddle fields, approximated
// Chakra nodes) on w, one line each, control characters escaped: every
// command that reads a workload prints them once per workload (issue 31:
// only stats, place and simulate did). workload, when not empty, is
// named in each line (commands that read several workloads).
func printWarnings(w io.Writer, workload string, warnings []string) {
	for _, m := range warnings {
		if workload != "" {
			fmt.Fprintf(w, "warning: %s: %s\n", EscapeTerminal(workload), EscapeTerminal(m))
		} else {
			fmt.Fprintf(w, "warning: %s\n", EscapeTerminal(m))
		}
	}
}
