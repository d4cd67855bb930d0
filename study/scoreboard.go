package study

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"placesim/reports"
)

// Paper is what a paper scenario's paper published: its values, cell by
// cell (table, row, placer), and its headline claims in words with the
// comparison that checks each. A scenario that carries one is a
// reproduction: `placesim run` and `placesim reproduce` print its
// scoreboard (Scoreboard) beside the results. YAML:
//
//	paper:
//	  title: Celeritas (Table 3)
//	  metric: stepTime          # stepTime (s), throughput (samples/s) or maxLoad (ms per sample)
//	  cells:
//	    - {table: "Table 3", row: Inception_V3, workload: "zoo:inception_v3?...", placer: m-topo, value: 3.100}
//	    - {table: "Table 3", row: NMT, workload: "zoo:gnmt?...", placer: m-etf, oom: true}
//	  claims:
//	    - {text: "Celeritas outperforms all baselines on all tested models", kind: best, placer: celeritas, than: [m-topo, m-etf]}
//	    - {text: "Pesto reduces training time by 15.5 % against Expert", kind: gain, placer: pesto, baseline: pesto-expert, gain: 0.155}
//	    - {text: "at 0.1x NVLink Pesto loses less than Expert", kind: robust, placer: pesto, baseline: pesto-expert, from: "link.nvlink.bandwidth=10x", to: "link.nvlink.bandwidth=0.1x"}
type Paper struct {
	Title  string `yaml:"title" json:"title"`
	Metric string `yaml:"metric" json:"metric"`
	// Cells are the published values; a row is the paper's row label.
	Cells  []PaperCell  `yaml:"cells,omitempty" json:"cells,omitempty"`
	Claims []PaperClaim `yaml:"claims,omitempty" json:"claims,omitempty"`
}

// PaperCell is one published value: the placer's metric (Paper.Metric)
// on a row's workload (and cluster, settings and regime, when the
// scenario has several), or oom: true where the paper reports an
// out-of-memory failure.
type PaperCell struct {
	Table    string `yaml:"table" json:"table"`
	Row      string `yaml:"row" json:"row"`
	Workload string `yaml:"workload" json:"workload"`
	// Cluster, Settings and Regime, when set, select the records of one
	// cluster, one what-if settings string (Setting.String joined with
	// spaces) and one regime; empty matches any (the first record found).
	Cluster  string  `yaml:"cluster,omitempty" json:"cluster,omitempty"`
	Settings string  `yaml:"settings,omitempty" json:"settings,omitempty"`
	Regime   string  `yaml:"regime,omitempty" json:"regime,omitempty"`
	Placer   string  `yaml:"placer" json:"placer"`
	Value    float64 `yaml:"value,omitempty" json:"value,omitempty"`
	OOM      bool    `yaml:"oom,omitempty" json:"oom,omitempty"`
}

// PaperClaim is a headline claim and the comparison that checks it:
//
//   - best: Placer is at least as good as every placer of Than in every
//     row where both ran (a tie within tieTol counts as holding);
//   - gain: Placer's mean relative gain over Baseline across the rows
//     (time: baseline/placer - 1; throughput: placer/baseline - 1) is
//     the paper's Gain: it holds at half of it or more, partly when it has
//     the paper's sign but less, and fails otherwise;
//   - robust: going from the settings From to To, Placer's loss
//     (metric at To over metric at From, minus 1, on each workload) is
//     smaller than Baseline's.
type PaperClaim struct {
	Text     string   `yaml:"text" json:"text"`
	Kind     string   `yaml:"kind" json:"kind"`
	Placer   string   `yaml:"placer" json:"placer"`
	Than     []string `yaml:"than,omitempty" json:"than,omitempty"`
	Baseline string   `yaml:"baseline,omitempty" json:"baseline,omitempty"`
	Gain     float64  `yaml:"gain,omitempty" json:"gain,omitempty"`
	From     string   `yaml:"from,omitempty" json:"from,omitempty"`
	To       string   `yaml:"to,omitempty" json:"to,omitempty"`
	// Regime, when set, reads Placer's records in that regime only, and
	// BaselineRegime the records of Baseline and Than (default: Regime),
	// for a paper whose baseline plays in another regime (FastT's data
	// parallelism).
	Regime         string `yaml:"regime,omitempty" json:"regime,omitempty"`
	BaselineRegime string `yaml:"baselineRegime,omitempty" json:"baselineRegime,omitempty"`
	// Workload and Cluster, when set, restrict the claim to the rows of
	// that workload and cluster.
	Workload string `yaml:"workload,omitempty" json:"workload,omitempty"`
	Cluster  string `yaml:"cluster,omitempty" json:"cluster,omitempty"`
}

// baseRegime is the regime of the claim's baselines.
func (c PaperClaim) baseRegime() string {
	if c.BaselineRegime != "" {
		return c.BaselineRegime
	}
	return c.Regime
}

// Metrics a Paper can compare.
const (
	MetricStepTime   = "stepTime"
	MetricThroughput = "throughput"
	MetricMaxLoad    = "maxLoad"
)

// Claim kinds.
const (
	ClaimBest   = "best"
	ClaimGain   = "gain"
	ClaimRobust = "robust"
)

// tieTol is the relative difference under which two simulated values are a
// tie in an ordering (0.5 %: the engine's results are exact, but a paper's
// tie, e.g. DP and IP at the same optimum, is printed to its digits).
const tieTol = 0.005

// Validate checks the paper section: a known metric, every cell with a
// row, workload, placer and a positive value or oom, every claim of a known
// kind with its fields. It names the field and the valid values.
func (p *Paper) Validate() error {
	switch p.Metric {
	case MetricStepTime, MetricThroughput, MetricMaxLoad:
	default:
		return fmt.Errorf("paper.metric %q (valid: %s, %s, %s)", p.Metric, MetricStepTime, MetricThroughput, MetricMaxLoad)
	}
	for i, c := range p.Cells {
		if c.Row == "" || c.Workload == "" || c.Placer == "" {
			return fmt.Errorf("paper.cells[%d]: row, workload and placer are required", i)
		}
		if c.OOM == (c.Value > 0) || math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			return fmt.Errorf("paper.cells[%d] (%s, %s): value %g, oom %v (valid: a positive finite value, or oom: true without a value)", i, c.Row, c.Placer, c.Value, c.OOM)
		}
	}
	for i, c := range p.Claims {
		if c.Text == "" || c.Placer == "" {
			return fmt.Errorf("paper.claims[%d]: text and placer are required", i)
		}
		switch c.Kind {
		case ClaimBest:
			if len(c.Than) == 0 {
				return fmt.Errorf("paper.claims[%d] (best): than is empty (valid: the placers it beats)", i)
			}
		case ClaimGain:
			if c.Baseline == "" {
				return fmt.Errorf("paper.claims[%d] (gain): baseline is required", i)
			}
		case ClaimRobust:
			if c.Baseline == "" || c.From == "" || c.To == "" {
				return fmt.Errorf("paper.claims[%d] (robust): baseline, from and to are required", i)
			}
		default:
			return fmt.Errorf("paper.claims[%d].kind %q (valid: %s, %s, %s)", i, c.Kind, ClaimBest, ClaimGain, ClaimRobust)
		}
	}
	return nil
}

// lowerIsBetter reports whether the metric is a time.
func (p *Paper) lowerIsBetter() bool { return p.Metric != MetricThroughput }

// Board is a scenario's scoreboard: each published cell beside its
// simulated value, per row the pairwise orderings reproduced and Kendall's
// τ, the OOM verdicts that agree, and each claim's verdict.
type Board struct {
	Scenario string
	Title    string
	Metric   string
	Cells    []BoardCell
	Rows     []BoardRow
	// OOMAgree of OOMCells: cells where the paper and the simulation agree
	// on out-of-memory (a refusal with a does-not-fit error counts as OOM).
	OOMAgree, OOMCells int
	Claims             []ClaimVerdict
}

// BoardCell is one published cell and its simulated counterpart.
type BoardCell struct {
	PaperCell
	// Simulated is the metric from the matching record (0 when none ran);
	// SimOOM says the run failed for memory; Missing says why there is no
	// simulated value.
	Simulated float64
	SimOOM    bool
	Missing   string
}

// BoardRow is one row's ordering agreement over the placers that have a
// value both in the paper and in the simulation.
type BoardRow struct {
	Table, Row string
	// Agree of Pairs placer pairs are ordered the same way (a tie in
	// both counts as agreeing).
	Agree, Pairs int
	// Tau is Kendall's τ-b between the paper's and the simulated values
	// (NaN with fewer than two placers or all tied).
	Tau float64
	// Held lists the pairs that agree, "a<b" (a better) or "a=b".
	Held []string
}

// ClaimVerdict is a claim checked against the simulation.
type ClaimVerdict struct {
	PaperClaim
	// Verdict is "holds", "partly" or "fails" ("no data" when no record
	// bears on it); Detail gives the numbers.
	Verdict, Detail string
}

// Scoreboard scores res against its scenario's paper section; nil when
// the scenario has none.
func Scoreboard(res *Results) *Board {
	if res == nil || res.Scenario == nil || res.Scenario.Paper == nil {
		return nil
	}
	p := res.Scenario.Paper
	b := &Board{Scenario: res.Scenario.Name, Title: p.Title, Metric: p.Metric}
	for _, c := range p.Cells {
		bc := BoardCell{PaperCell: c}
		r := findRecord(res, c.Workload, c.Cluster, c.Settings, c.Regime, c.Placer)
		switch {
		case r == nil:
			bc.Missing = "no record"
		case p.Metric == MetricMaxLoad && r.MaxLoad != nil && *r.MaxLoad > 0:
			// the placer's own max-load, the quantity the paper's table
			// reports, whatever its simulation in the regime did
			bc.Simulated = *r.MaxLoad * 1e3 // records hold seconds; papers give ms
		case r.NotComparable != "":
			bc.Missing = "not comparable"
		case r.OOM != nil || strings.Contains(r.Error, "does not fit"):
			bc.SimOOM = true
		case r.Error != "":
			bc.Missing = "error"
		default:
			if v, ok := metric(r, p.Metric); ok {
				bc.Simulated = v
			} else {
				bc.Missing = "no " + p.Metric
			}
		}
		b.Cells = append(b.Cells, bc)
		if c.OOM || bc.SimOOM {
			if bc.Missing == "" {
				b.OOMCells++
				if c.OOM == bc.SimOOM {
					b.OOMAgree++
				}
			}
		} else if bc.Missing == "" {
			b.OOMCells++
			b.OOMAgree++ // both ran
		}
	}
	b.Rows = rows(b.Cells, p.lowerIsBetter())
	for _, c := range p.Claims {
		b.Claims = append(b.Claims, checkClaim(res, p, c))
	}
	return b
}

// metric reads the paper's metric from a record.
func metric(r *Record, m string) (float64, bool) {
	switch m {
	case MetricStepTime:
		return r.StepTime, r.StepTime > 0 && !math.IsInf(r.StepTime, 0)
	case MetricThroughput:
		return r.Throughput, r.Throughput > 0 && !math.IsInf(r.Throughput, 0)
	case MetricMaxLoad:
		if r.MaxLoad != nil && *r.MaxLoad > 0 && !math.IsInf(*r.MaxLoad, 0) {
			return *r.MaxLoad * 1e3, true // records hold seconds; papers give ms
		}
	}
	return 0, false
}

// findRecord is the first record of placer on the workload whose cluster,
// settings and regime match where given.
func findRecord(res *Results, workload, cluster, settings, regime, placer string) *Record {
	for i := range res.Records {
		r := &res.Records[i]
		if r.Placer != placer || r.Workload != workload {
			continue
		}
		if cluster != "" && r.Cluster != cluster {
			continue
		}
		if settings != "" && settingsLabel(r.Settings) != settings {
			continue
		}
		if regime != "" && r.Regime != regime {
			continue
		}
		return r
	}
	return nil
}

// rows scores each row's orderings over the cells with both values.
func rows(cells []BoardCell, lower bool) []BoardRow {
	type key struct{ table, row string }
	var order []key
	seen := map[key]bool{}
	byRow := map[key][]BoardCell{}
	for _, c := range cells {
		k := key{c.Table, c.Row}
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
		if c.Value > 0 && c.Simulated > 0 {
			byRow[k] = append(byRow[k], c)
		}
	}
	var out []BoardRow
	for _, k := range order {
		cs := byRow[k]
		br := BoardRow{Table: k.table, Row: k.row}
		var conc, disc, tp, ts float64
		for i := 0; i < len(cs); i++ {
			for j := i + 1; j < len(cs); j++ {
				a, b := cs[i], cs[j]
				sp := cmpVal(a.Value, b.Value, 0, lower)
				ss := cmpVal(a.Simulated, b.Simulated, tieTol, lower)
				br.Pairs++
				if sp == ss {
					br.Agree++
					switch {
					case sp < 0:
						br.Held = append(br.Held, a.Placer+"<"+b.Placer)
					case sp > 0:
						br.Held = append(br.Held, b.Placer+"<"+a.Placer)
					default:
						br.Held = append(br.Held, a.Placer+"="+b.Placer)
					}
				}
				switch {
				case sp == 0 && ss == 0:
					tp++
					ts++
				case sp == 0:
					tp++
				case ss == 0:
					ts++
				case sp == ss:
					conc++
				default:
					disc++
				}
			}
		}
		n0 := float64(br.Pairs)
		if d := math.Sqrt((n0 - tp) * (n0 - ts)); d > 0 {
			br.Tau = (conc - disc) / d
		} else {
			br.Tau = math.NaN()
		}
		sort.Strings(br.Held)
		out = append(out, br)
	}
	return out
}

// cmpVal is -1 when a is better than b, 1 when worse, 0 within tol.
func cmpVal(a, b, tol float64, lower bool) int {
	if math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) {
		return 0
	}
	if (a < b) == lower {
		return -1
	}
	return 1
}

// rowKey groups records that a paper's row compares: same workload,
// cluster and settings (the regime is the claim's or any).
func rowKey(r *Record) string {
	return r.Workload + " | " + r.Cluster + " | " + settingsLabel(r.Settings)
}

// values collects, per row key, placer's metric (records that ran) in
// the claim's rows.
func values(res *Results, p *Paper, c PaperClaim, placer, regime string) map[string]float64 {
	out := map[string]float64{}
	for i := range res.Records {
		r := &res.Records[i]
		ranMaxLoad := p.Metric == MetricMaxLoad && r.MaxLoad != nil && r.Error == ""
		if r.Placer != placer || (r.Failed() && !ranMaxLoad) || r.NotComparable != "" {
			continue
		}
		if (regime != "" && r.Regime != regime) || (c.Workload != "" && r.Workload != c.Workload) || (c.Cluster != "" && r.Cluster != c.Cluster) {
			continue
		}
		if v, ok := metric(r, p.Metric); ok {
			if _, seen := out[rowKey(r)]; !seen {
				out[rowKey(r)] = v
			}
		}
	}
	return out
}

// gainOf is a's relative gain over b in the paper's metric, and false
// where their ratio means nothing (a quotient beyond float64: a gain of
// +Inf % is no figure; issue 31).
func gainOf(a, b float64, lower bool) (float64, bool) {
	num, den := a, b
	if lower {
		num, den = b, a
	}
	x, why := reports.RatioOf(num, den)
	return x - 1, why == ""
}

// meanGain is the mean of a's gain over b (gainOf) over the rows both
// hold, and the number of rows it is taken over (0: no mean); a gain
// beyond float64 leaves its row out. Rows are summed in key order, so
// that the mean is the same to the last bit on every run.
func meanGain(a, b map[string]float64, lower bool) (float64, int) {
	sum, n := 0.0, 0
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if y, ok := b[k]; ok {
			if g, ok := gainOf(a[k], y, lower); ok {
				sum += g
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

func checkClaim(res *Results, p *Paper, c PaperClaim) ClaimVerdict {
	v := ClaimVerdict{PaperClaim: c, Verdict: "no data"}
	lower := p.lowerIsBetter()
	mine := values(res, p, c, c.Placer, c.Regime)
	switch c.Kind {
	case ClaimBest:
		rowsHeld, rowsAll := 0, 0
		var worst []string
		keys := slices.Sorted(maps.Keys(mine))
		for _, k := range keys {
			all, any := true, false
			for _, o := range c.Than {
				ov, ok := values(res, p, c, o, c.baseRegime())[k]
				if !ok {
					continue
				}
				any = true
				if cmpVal(mine[k], ov, tieTol, lower) > 0 {
					all = false
					behind := "n/a (ratio beyond float64)"
					if g, ok := gainOf(mine[k], ov, lower); ok {
						behind = fmt.Sprintf("%.1f %%", 100*-g)
					}
					worst = append(worst, fmt.Sprintf("%s behind %s by %s on %s", c.Placer, o, behind, shortKey(k)))
				}
			}
			if any {
				rowsAll++
				if all {
					rowsHeld++
				}
			}
		}
		if rowsAll == 0 {
			return v
		}
		v.Detail = fmt.Sprintf("%s at least as good as %s in %d of %d rows", c.Placer, strings.Join(c.Than, ", "), rowsHeld, rowsAll)
		if len(worst) > 0 {
			sort.Strings(worst)
			v.Detail += "; e.g. " + worst[0]
		}
		switch {
		case rowsHeld == rowsAll:
			v.Verdict = "holds"
		case 2*rowsHeld >= rowsAll:
			v.Verdict = "partly"
		default:
			v.Verdict = "fails"
		}
	case ClaimGain:
		g, n := meanGain(mine, values(res, p, c, c.Baseline, c.baseRegime()), lower)
		if n == 0 {
			return v
		}
		v.Detail = fmt.Sprintf("mean gain of %s over %s: paper %+.1f %%, simulated %+.1f %% over %d rows", c.Placer, c.Baseline, 100*c.Gain, 100*g, n)
		switch {
		case (g > 0) == (c.Gain > 0) && math.Abs(g) >= math.Abs(c.Gain)/2:
			v.Verdict = "holds"
		case (g > 0) == (c.Gain > 0):
			v.Verdict = "partly"
		default:
			v.Verdict = "fails"
		}
	case ClaimRobust:
		loss := func(placer, regime string) (float64, int) {
			from, to := map[string]float64{}, map[string]float64{}
			for i := range res.Records {
				r := &res.Records[i]
				if r.Placer != placer || r.Failed() || (regime != "" && r.Regime != regime) || (c.Workload != "" && r.Workload != c.Workload) {
					continue
				}
				val, ok := metric(r, p.Metric)
				if !ok {
					continue
				}
				k := r.Workload + " | " + r.Cluster
				switch settingsLabel(r.Settings) {
				case c.From:
					from[k] = val
				case c.To:
					to[k] = val
				}
			}
			g, n := meanGain(to, from, lower)
			return -g, n
		}
		a, na := loss(c.Placer, c.Regime)
		b, nb := loss(c.Baseline, c.baseRegime())
		if na == 0 || nb == 0 {
			return v
		}
		v.Detail = fmt.Sprintf("from %s to %s: %s loses %.1f %%, %s %.1f %%", c.From, c.To, c.Placer, 100*a, c.Baseline, 100*b)
		if a < b {
			v.Verdict = "holds"
		} else {
			v.Verdict = "fails"
		}
	}
	return v
}

// shortKey is a row key's workload (and settings).
func shortKey(k string) string {
	parts := strings.Split(k, " | ")
	s := parts[0]
	if len(parts) > 2 && parts[2] != "" {
		s += " " + parts[2]
	}
	return s
}

// WriteScoreboard prints the board: paper beside simulated per cell, per
// row the orderings reproduced and Kendall's τ, OOM agreement, and each
// claim's verdict with its numbers.
func WriteScoreboard(w io.Writer, b *Board) {
	if b == nil {
		return
	}
	unit := map[string]string{MetricStepTime: "step time, s", MetricThroughput: "samples/s", MetricMaxLoad: "max-load, ms per sample"}[b.Metric]
	fmt.Fprintf(w, "scoreboard: %s (%s; scenario %s)\n", b.Title, unit, b.Scenario)
	if len(b.Cells) > 0 {
		fmt.Fprintf(w, "%-10s %-40s %-22s %10s %10s\n", "table", "row", "placer", "paper", "simulated")
	}
	for _, c := range b.Cells {
		pv := fmt.Sprintf("%.4g", c.Value)
		if c.OOM {
			pv = "OOM"
		}
		sv := fmt.Sprintf("%.4g", c.Simulated)
		switch {
		case c.SimOOM:
			sv = "OOM"
		case c.Missing != "":
			sv = "(" + c.Missing + ")"
		}
		fmt.Fprintf(w, "%-10s %-40s %-22s %10s %10s\n", c.Table, c.Row, c.Placer, pv, sv)
	}
	agree, pairs := 0, 0
	for _, r := range b.Rows {
		tau := "-"
		if !math.IsNaN(r.Tau) {
			tau = fmt.Sprintf("%+.2f", r.Tau)
		}
		fmt.Fprintf(w, "orderings %-10s %-40s %3d of %3d agree, Kendall tau %s\n", r.Table, r.Row, r.Agree, r.Pairs, tau)
		agree += r.Agree
		pairs += r.Pairs
	}
	if len(b.Cells) > 0 {
		fmt.Fprintf(w, "orderings total: %d of %d pairs agree\n", agree, pairs)
		fmt.Fprintf(w, "OOM agreement: %d of %d cells\n", b.OOMAgree, b.OOMCells)
	}
	held := 0
	for _, c := range b.Claims {
		if c.Verdict == "holds" {
			held++
		}
		fmt.Fprintf(w, "claim [%s] %s: %s\n", c.Verdict, c.Text, c.Detail)
	}
	if len(b.Claims) > 0 {
		fmt.Fprintf(w, "claims: %d of %d hold\n", held, len(b.Claims))
	}
}
