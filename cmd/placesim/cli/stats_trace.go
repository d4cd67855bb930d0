package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"placesim/internal/units"
	"placesim/workloads/chakra"
)

// printTrace prints what an execution trace holds (stats of a Chakra or
// PyTorch execution trace).
func printTrace(w io.Writer, t *chakra.Summary) {
	ver := t.Version
	if ver == "" {
		ver = "unset"
	}
	fmt.Fprintf(w, "trace              %s, %d file(s), ranks %v, schema version %s, host schema %s\n", t.Format, len(t.Files), t.Ranks, ver, orDash(t.Schema))
	fmt.Fprintf(w, "trace nodes        %d (%d compute, %d collective, %d send, %d recv, %d memory, %d metadata; %d host operators)\n",
		t.Nodes, t.Compute, t.Collective, t.Send, t.Recv, t.Memory, t.Metadata, t.HostOps)
	fmt.Fprintf(w, "compute durations  %s total (%d µs; kernels %s, host operators %s)\n", units.Seconds(t.ComputeSeconds), int64(t.ComputeSeconds*1e6+0.5), units.Seconds(t.KernelSeconds), units.Seconds(t.ComputeSeconds-t.KernelSeconds))
	if t.Collective > 0 {
		var kinds []string
		for k, n := range t.Collectives {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "collectives        %s (measured %s; %d played between ranks of the set, %d on this rank alone: measured time, else cost model)\n", strings.Join(kinds, ", "), units.Seconds(t.CollectiveSeconds), t.CollectivesSimulated, t.CollectivesMeasured)
	}
	for _, g := range t.Groups {
		ranks := "all ranks"
		if g.Ranks != nil {
			ranks = fmt.Sprint(g.Ranks)
		}
		fmt.Fprintf(w, "process group      %q: %d ranks (%s), backend %s\n", g.Name, g.Size, ranks, orDash(g.Backend))
	}
	fmt.Fprintf(w, "measured times     on %s; host operators: %s; %d played nodes without a duration use the cost model\n", t.Device, t.CPU, t.NoDuration)
	fmt.Fprintf(w, "longest chain      %s of measured durations (a lower bound of the simulated step)\n", units.Seconds(t.LongestChain))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
