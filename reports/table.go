package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"placesim/internal/units"

	"placesim/runresult"
)

// newTable returns a tablewriter table with the headers as written (no
// upper-casing) and the given per-column alignment.
func newTable(w io.Writer, align tw.Alignment) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignCenter),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
}

// summaryHeader is the comparison table's header.
var summaryHeader = []string{"#", "placer", "execution", "step time", "vs best", "samples/s", "max peak memory", "moved", "status", "place time"}

// summary returns the comparison table's cells for rows (sorted) and the
// full error messages its status cells refer to by number.
func summary(rows []*runresult.Record) (cells [][]string, notes []string) {
	best := bestByRegime(rows)
	for i, o := range rows {
		step, vs, tput, peak, moved := "-", "-", "-", "-", "-"
		if simulated(o) {
			step = units.Seconds(o.StepTime)
			tput = fmt.Sprintf("%.1f", o.Throughput)
			if l := vsBestLabel(o, best); l != "" {
				vs = l
			}
			d, p, c := maxPeak(o)
			peak = fmt.Sprintf("%s (%.0f%% %s)", units.Bytes(p), percent(p, c), deviceName(o, d))
			moved = units.Bytes(o.BytesMoved)
		}
		st := status(o)
		if o.Error != "" {
			notes = append(notes, fmt.Sprintf("[%d] %s: %s", len(notes)+1, o.Placer, oneLine(o.Error)))
			st = fmt.Sprintf("%s [%d]", statusCode(o), len(notes))
		}
		for _, n := range o.Notes() {
			notes = append(notes, fmt.Sprintf("[%d] %s: %s", len(notes)+1, o.Placer, oneLine(n)))
			st = fmt.Sprintf("%s [%d]", st, len(notes))
		}
		pt := "-"
		if o.PlaceTime != nil {
			pt = units.Seconds(*o.PlaceTime)
		}
		cells = append(cells, []string{fmt.Sprint(i + 1), o.Placer, Execution(o), step, vs, tput, peak, moved, st, pt})
	}
	return cells, notes
}

// Table writes the comparison table: one row per run, grouped by regime
// and sorted by step time within it (its execution says whether the step
// was one pass or a micro-batch pipeline or data-parallel replicas, which
// is not the same game) (runs within memory first, then out-of-memory
// runs, then failed ones, then those not comparable in the regime), with
// the slowdown against the best run within memory of the same regime,
// throughput, the largest peak
// memory as a share of its device's capacity (the per-device breakdown is
// MemoryTable), bytes moved over links, the run's status and its placement
// time. Error messages, fallbacks, relaxed constraints, rewritten graphs
// and why a run is not comparable are listed in full under the table,
// numbered, then the regime notes (a placer played outside the regime it
// declared); OOM rows say on which device.
func Table(w io.Writer, rows []*runresult.Record) error {
	R, L := tw.AlignRight, tw.AlignLeft
	t := newTable(w, tw.Alignment{R, L, L, R, R, R, R, R, L, R})
	t.Header(summaryHeader)
	rows = sorted(rows)
	cells, notes := summary(rows)
	notes = append(notes, RegimeNotes(rows)...)
	for _, c := range cells {
		if err := t.Append(c); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// MemoryTable writes each run's peak memory per device, with the devices'
// capacities in the header: the breakdown behind Table's max peak column.
// An OOM device is marked "OOM".
func MemoryTable(w io.Writer, rows []*runresult.Record) error {
	rows = sorted(rows)
	ref := reference(rows)
	if ref == nil {
		_, err := fmt.Fprintln(w, "no run was simulated: no memory figures")
		return err
	}
	header := []string{"placer"}
	align := tw.Alignment{tw.AlignLeft}
	for i := range ref.PeakMemory {
		header = append(header, fmt.Sprintf("%s (%s)", deviceName(ref, i), units.Bytes(ref.Capacity[i])))
		align = append(align, tw.AlignRight)
	}
	t := newTable(w, align)
	t.Header(header)
	for _, o := range rows {
		cells := []string{o.Placer}
		for i := range ref.PeakMemory {
			cells = append(cells, peakCell(o, i))
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

// peakCell is "1.20 GiB (8%)" for device i of o, marked when it is the OOM
// device, "-" when o has no figures.
func peakCell(o *runresult.Record, i int) string {
	if !simulated(o) || i >= len(o.PeakMemory) {
		return "-"
	}
	s := fmt.Sprintf("%s (%.0f%%)", units.Bytes(o.PeakMemory[i]), percent(o.PeakMemory[i], o.Capacity[i]))
	if o.OOM != nil && o.OOM.Device == i {
		s += " OOM"
	}
	return s
}

// reference is the first simulated row: it names the devices.
func reference(rows []*runresult.Record) *runresult.Record {
	for _, o := range rows {
		if simulated(o) {
			return o
		}
	}
	return nil
}

// TableText is Table then MemoryTable, as written to table.txt.
func TableText(w io.Writer, rows []*runresult.Record) error {
	if err := Table(w, rows); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "\npeak memory per device (capacity):"); err != nil {
		return err
	}
	return MemoryTable(w, rows)
}

// oneLine squeezes s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
