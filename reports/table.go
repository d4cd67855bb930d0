package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"placesim/internal/units"
	"placesim/study"
)

// Table writes a comparison table: one row per outcome with step time,
// throughput, peak memory per device (as a fraction of capacity), OOM and
// placement time. Rows are written in the given order.
func Table(w io.Writer, rows []*study.Outcome) error {
	t := tablewriter.NewWriter(w)
	t.Header("placer", "step time", "samples/s", "peak memory per device", "OOM", "place time")
	for _, o := range rows {
		oom := "-"
		switch {
		case o.Error != "":
			oom = "ERROR: " + o.Error
		case o.OOM != nil:
			oom = fmt.Sprintf("OOM on %s (%s asked)", o.OOM.DeviceName, units.Bytes(o.OOM.Requested))
		}
		step, tput := "-", "-"
		if o.Result != nil || o.StepTime > 0 {
			step = units.Seconds(o.StepTime)
			tput = fmt.Sprintf("%.1f", o.Throughput)
		}
		pt := "-"
		if o.PlaceTime != nil {
			pt = units.Seconds(*o.PlaceTime)
		}
		if err := t.Append(o.Placer, step, tput, PeakSummary(o), oom, pt); err != nil {
			return err
		}
	}
	return t.Render()
}

// PeakSummary lists each device's peak memory, e.g. "gpu0 3.2 GiB (10%)".
func PeakSummary(o *study.Outcome) string {
	var parts []string
	for i, p := range o.PeakMemory {
		name := fmt.Sprint(i)
		if i < len(o.Devices) {
			name = o.Devices[i].Name
		}
		pct := 0.0
		if i < len(o.Capacity) && o.Capacity[i] > 0 {
			pct = 100 * float64(p) / float64(o.Capacity[i])
		}
		parts = append(parts, fmt.Sprintf("%s %s (%.0f%%)", name, units.Bytes(p), pct))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
