package study

import (
	"io"
	"strconv"
	"strings"

	"placesim/reports"
)

// recordsCSVHeader names the columns of WriteRecordsCSV.
var recordsCSVHeader = []string{"index", "workload", "cluster", "settings", "regime", "placer", "seed",
	"stepTime", "throughput", "maxPeakMemory", "oom", "error", "notComparable", "fallback", "relaxed", "regimeNote"}

// WriteRecordsCSV writes a scenario's records as results.csv (through
// reports.WriteCSV): the point (index, workload, cluster, settings as
// space-separated param=value, regime, placer, seed), step time in seconds,
// throughput in samples/s, the largest peak memory in bytes, the device
// that ran out of memory (empty if none), the error (empty if none), why
// the point is not comparable in its regime, the placer's fallback and
// relaxed constraints (";"-separated) and the regime note. A point that was
// not simulated (an error, or not comparable in its regime) has empty step
// time, throughput and peak memory, never a 0 a reader could take for a
// measurement.
func WriteRecordsCSV(w io.Writer, res *Results) error {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	// one row at a time: a merge of 1,000,000 records held them all as
	// strings first (issue 31)
	return reports.WriteCSVFunc(w, recordsCSVHeader, len(res.Records), func(i int) []string {
		r := &res.Records[i]
		oom := ""
		if r.OOM != nil {
			oom = r.OOM.DeviceName
		}
		var set []string
		for _, s := range r.Settings {
			set = append(set, s.String())
		}
		step, tput, peak := "", "", ""
		if r.Error == "" && r.NotComparable == "" && len(r.PeakMemory) > 0 {
			step, tput, peak = f(r.StepTime), f(r.Throughput), strconv.FormatInt(r.MaxPeak(), 10)
		}
		return []string{strconv.Itoa(r.Index), r.Workload, r.Cluster, strings.Join(set, " "), r.Regime, r.Placer,
			strconv.FormatUint(r.Seed, 10), step, tput, peak, oom, r.Error,
			r.NotComparable, r.Fallback, strings.Join(r.Relaxed, ";"), r.RegimeNote}
	})
}
