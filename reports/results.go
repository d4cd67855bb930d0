package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"placesim/runresult"
)

// JSON writes {"results": [...]}: one object per run, sorted as in Table,
// with the fields of outcomeJSON (times in seconds, sizes in bytes; stepTime
// and throughput null when the run was not simulated;
// placeTime null in reproducible runs, oom null or an object) and vsBest,
// the run's step time over the best of its own regime (absent when the
// run failed, ran out of memory or is not comparable), as the table's
// "vs best" column.
func JSON(w io.Writer, rows []*runresult.Record) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Results []jsonRow `json:"results"`
	}{jsonRows(rows)}); err != nil {
		return fmt.Errorf("results json: %w", err)
	}
	return nil
}

// jsonRow is a run as JSON writes it: the run and its slowdown against
// the best run of its regime.
type jsonRow struct {
	*outcomeJSON
	VsBest float64 `json:"vsBest,omitempty"`
	// StepTime and Throughput are the run's, null when the run was
	// not simulated (an error, or not comparable in its regime).
	StepTime   *float64 `json:"stepTime"`
	Throughput *float64 `json:"throughput"`
}

// jsonRows sorts rows as Table does and adds each one's vsBest.
func jsonRows(rows []*runresult.Record) []jsonRow {
	rows = sorted(rows)
	best := bestByRegime(rows)
	out := make([]jsonRow, len(rows))
	for i, o := range rows {
		out[i] = jsonRow{outcomeJSON: newOutcomeJSON(o), VsBest: vsBest(o, best)}
		if o.Error == "" && o.NotComparable == "" {
			out[i].StepTime, out[i].Throughput = &o.StepTime, &o.Throughput
		}
	}
	return out
}

// CSV writes one line per run, sorted as in Table: placer, regime,
// execution, status (ok, oom, timeout, error or not-comparable), step
// time and placement time in seconds, throughput in samples/s, bytes and
// transfers moved, the OOM's device, op and bytes asked, the error, why
// the run is not comparable in its regime, the placer's fallback and
// relaxed constraints (";"-separated), the regime note, the rewritten
// graph, then
// each device's peak memory and capacity in bytes (columns
// peakMemory:<device>, capacity:<device>). Missing figures are empty.
func CSV(w io.Writer, rows []*runresult.Record) error {
	rows = sorted(rows)
	ref := reference(rows)
	header := []string{"placer", "regime", "execution", "status", "stepTime", "throughput", "placeTime", "bytesMoved", "transfers",
		"oomDevice", "oomOp", "oomRequested", "error", "notComparable", "fallback", "relaxed", "regimeNote", "rewritten"}
	ndev := 0
	if ref != nil {
		ndev = len(ref.PeakMemory)
		for d := 0; d < ndev; d++ {
			header = append(header, "peakMemory:"+deviceName(ref, d))
		}
		for d := 0; d < ndev; d++ {
			header = append(header, "capacity:"+deviceName(ref, d))
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var recs [][]string
	for _, o := range rows {
		rec := []string{o.Placer, regimeOf(o), Execution(o), statusCode(o), "", "", "", "", "", "", "", "", oneLine(o.Error),
			oneLine(o.NotComparable), oneLine(o.Fallback), strings.Join(o.Relaxed, ";"), o.RegimeNote, o.Rewritten}
		if simulated(o) {
			rec[4], rec[5] = f(o.StepTime), f(o.Throughput)
			rec[7], rec[8] = strconv.FormatInt(o.BytesMoved, 10), strconv.Itoa(o.Transfers)
		}
		if o.PlaceTime != nil {
			rec[6] = f(*o.PlaceTime)
		}
		if o.OOM != nil {
			rec[9], rec[10], rec[11] = o.OOM.DeviceName, o.OOM.OpName, strconv.FormatInt(o.OOM.Requested, 10)
		}
		for _, vals := range [][]int64{o.PeakMemory, o.Capacity} {
			for d := 0; d < ndev; d++ {
				cell := ""
				if simulated(o) && d < len(vals) {
					cell = strconv.FormatInt(vals[d], 10)
				}
				rec = append(rec, cell)
			}
		}
		recs = append(recs, rec)
	}
	if err := WriteCSV(w, header, recs); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// statusCode is a run's state for machines: ok, oom, timeout, error or
// not-comparable.
func statusCode(o *runresult.Record) string {
	switch {
	case o.NotComparable != "":
		return "not-comparable"
	case o.Error != "" && strings.HasPrefix(o.Error, "timed out"):
		return "timeout"
	case o.Error != "":
		return "error"
	case o.OOM != nil:
		return "oom"
	}
	return "ok"
}

// WriteComparison prints a comparison's rows in format (table, csv or
// json); with several regimes, the table is one table per regime then the
// placer x regime matrix, and JSON adds the matrix.
func WriteComparison(out io.Writer, format string, rows []*runresult.Record, regimes []string) error {
	if len(regimes) <= 1 {
		switch format {
		case "json":
			return JSON(out, rows)
		case "csv":
			return CSV(out, rows)
		}
		return Table(out, rows)
	}
	m := NewRegimeMatrix(rows, regimes)
	switch format {
	case "json":
		return JSONWithMatrix(out, rows, m)
	case "csv":
		return CSV(out, rows)
	}
	for _, r := range regimes {
		var rr []*runresult.Record
		for _, o := range rows {
			if o.Regime == r {
				rr = append(rr, o)
			}
		}
		if _, err := fmt.Fprintf(out, "regime %s\n", r); err != nil {
			return err
		}
		if err := Table(out, rr); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	if _, err := fmt.Fprintln(out, "placer x regime (step time, slowdown vs the best of that regime):"); err != nil {
		return err
	}
	return m.Table(out)
}

// OutcomeJSON writes one run as simulate --format json prints it: one
// indented object with the fields of a JSON row (see JSON) but vsBest,
// stepTime and throughput 0 when the run was not simulated.
func OutcomeJSON(w io.Writer, o *runresult.Record) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(newOutcomeJSON(o)); err != nil {
		return fmt.Errorf("outcome json: %w", err)
	}
	return nil
}
