package study

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"placesim/internal/units"
	"placesim/reports"
)

// The text views of a results file that run, sweep and merge print (the
// figures and CSV are in sweep_report.go and csv.go).

func settingsString(ss []Setting) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " ")
}

// recordGroup is the comparison a record belongs to: same workload,
// cluster, settings, seed and regime.
func recordGroup(r *Record) string {
	return fmt.Sprintf("%s|%s|%s|%d|%s", r.Workload, r.Cluster, settingsString(r.Settings), r.Seed, r.Regime)
}

// WriteRecordsTable prints one line per point with its regime and its
// slowdown against the best point of its comparison (same workload,
// cluster, settings, seed and regime), then the notes its status refers
// to by number (errors, not comparable, fallbacks, relaxed constraints)
// and the regime notes.
func WriteRecordsTable(w io.Writer, res *Results) {
	const tableBlock = 10_000
	best := map[string]float64{}
	for i := range res.Records {
		r := &res.Records[i]
		if r.Failed() || r.NotComparable != "" || r.StepTime <= 0 {
			continue
		}
		if b, ok := best[recordGroup(r)]; !ok || r.StepTime < b {
			best[recordGroup(r)] = r.StepTime
		}
	}
	var notes []string
	var noted []*Record // the records with a regime note
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "placer\tworkload\tcluster\tsettings\tregime\tseed\tstep time\tvs best\tmax peak\tstatus")
	for i := range res.Records {
		r := &res.Records[i]
		status := "ok"
		switch {
		case r.NotComparable != "":
			status = "not comparable"
		case r.Error != "":
			status = "error"
		case r.OOM != nil:
			status = "OOM on " + r.OOM.DeviceName
		}
		var rn []string
		if r.Error != "" {
			rn = append(rn, r.Error)
		}
		rn = append(rn, r.Notes()...)
		for _, n := range rn {
			notes = append(notes, fmt.Sprintf("[%d] %s: %s", len(notes)+1, r.Placer, strings.Join(strings.Fields(n), " ")))
			status += fmt.Sprintf(" [%d]", len(notes))
		}
		if r.RegimeNote != "" {
			noted = append(noted, r)
		}
		step, vs, peak := "-", "-", "-"
		if r.Error == "" && r.NotComparable == "" {
			step, peak = units.Seconds(r.StepTime), units.Bytes(r.MaxPeak())
			if b, ok := best[recordGroup(r)]; ok && r.OOM == nil {
				vs = reports.Ratio(r.StepTime, b)
			}
		}
		set := settingsString(r.Settings)
		if set == "" {
			set = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Placer, r.Workload, r.Cluster, set, r.Regime, r.Seed, step, vs, peak, status)
		if (i+1)%tableBlock == 0 {
			// tabwriter holds every cell until it flushes: columns are
			// aligned within blocks of tableBlock rows, so that a table
			// of 1,000,000 records is never held whole (issue 31)
			tw.Flush()
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	for _, n := range reports.RegimeNotes(noted) {
		fmt.Fprintln(w, n)
	}
}

// WriteSweepSummary prints a sweep's step time per placer (rows) per
// value of its vary parameter (columns).
func WriteSweepSummary(w io.Writer, res *Results) {
	type key struct{ placer, value string }
	cell := map[key]string{}
	var placersSeen, values []string
	multi := len(res.Scenario.Regimes) > 1
	for _, r := range res.Records {
		v := ""
		if n := len(r.Settings); n > 0 {
			v = r.Settings[n-1].Value
		}
		if !contains(values, v) {
			values = append(values, v)
		}
		name := r.Placer
		if multi {
			name = fmt.Sprintf("%s [%s]", r.Placer, r.Regime)
		}
		if !contains(placersSeen, name) {
			placersSeen = append(placersSeen, name)
		}
		s := units.Seconds(r.StepTime)
		switch {
		case r.NotComparable != "":
			s = "n/c"
		case r.Error != "":
			s = "error"
		case r.OOM != nil:
			s = "OOM"
		}
		cell[key{name, v}] = s
	}
	sort.Strings(placersSeen)
	fmt.Fprintf(w, "%-20s", "placer \\ "+res.Scenario.Vary.Param)
	for _, v := range values {
		fmt.Fprintf(w, " %12s", v)
	}
	fmt.Fprintln(w)
	for _, p := range placersSeen {
		fmt.Fprintf(w, "%-20s", p)
		for _, v := range values {
			fmt.Fprintf(w, " %12s", cell[key{p, v}])
		}
		fmt.Fprintln(w)
	}
}
