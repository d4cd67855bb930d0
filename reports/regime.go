package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"placesim/internal/units"

	"placesim/runresult"
)

// regimeOf is o's regime label, "step" when the run did not record one.
func regimeOf(o *runresult.Record) string {
	if o.Regime == "" {
		return "step"
	}
	return o.Regime
}

// regimesOf lists the distinct regimes of rows in the order they appear.
func regimesOf(rows []*runresult.Record) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range rows {
		if r := regimeOf(o); !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// bestByRegime is, per regime, the step time of the fastest run that fit
// in memory (absent: none did). "vs best", the winner and the charts
// compare a row only with rows of its own regime.
func bestByRegime(rows []*runresult.Record) map[string]float64 {
	best := map[string]float64{}
	for _, o := range rows {
		if o.Failed() || o.NotComparable != "" || o.StepTime <= 0 {
			continue
		}
		r := regimeOf(o)
		if b, ok := best[r]; !ok || o.StepTime < b {
			best[r] = o.StepTime
		}
	}
	return best
}

// vsBest is o's slowdown against the best run of its regime, or 0 when
// there is none to compare (o failed, ran out of memory, or no run of its
// regime fit).
func vsBest(o *runresult.Record, best map[string]float64) float64 {
	b, ok := best[regimeOf(o)]
	if !ok || b <= 0 || !simulated(o) || o.OOM != nil {
		return 0
	}
	x, _ := RatioOf(o.StepTime, b) // 0 where it means nothing (issue 31)
	return x
}

// vsBestLabel is o's slowdown against the best run of its regime as a
// label ("1.23x", or "n/a (why)" for a ratio beyond float64), "" where
// vsBest has none to give (no simulated best, o not simulated, OOM).
func vsBestLabel(o *runresult.Record, best map[string]float64) string {
	b, ok := best[regimeOf(o)]
	if !ok || b <= 0 || !simulated(o) || o.OOM != nil {
		return ""
	}
	return Ratio(o.StepTime, b)
}

// rowLabel names o on a chart axis: the placer, and its regime in
// brackets when the rows mix regimes.
func rowLabel(o *runresult.Record, mixed bool) string {
	if mixed {
		return fmt.Sprintf("%s [%s]", o.Placer, regimeOf(o))
	}
	return o.Placer
}

// RegimeNotes groups the rows' regime notes: one line per note, in the
// order the notes first appear, naming the placers it applies to (sorted,
// each once): "NOTE: a, b". compare's table and run's and sweep's
// records table print them under their numbered notes.
func RegimeNotes(rows []*runresult.Record) []string {
	by := map[string][]string{}
	var order []string
	for _, o := range rows {
		if o.RegimeNote == "" {
			continue
		}
		ps, seen := by[o.RegimeNote]
		if !seen {
			order = append(order, o.RegimeNote)
		}
		if !slices.Contains(ps, o.Placer) {
			by[o.RegimeNote] = append(ps, o.Placer)
		}
	}
	var out []string
	for _, n := range order {
		ps := by[n]
		sort.Strings(ps)
		out = append(out, fmt.Sprintf("%s: %s", n, strings.Join(ps, ", ")))
	}
	return out
}

// RegimeCell is one placer's run in one regime.
type RegimeCell struct {
	Regime string `json:"regime"`
	// Status is ok, oom, timeout, error, not-comparable or missing.
	Status string `json:"status"`
	// StepTime in seconds (0 when not simulated).
	StepTime float64 `json:"stepTime,omitempty"`
	// VsBest is the slowdown against the best run of the same regime (0
	// when the run failed or ran out of memory).
	VsBest float64 `json:"vsBest,omitempty"`
}

// PlacerRegimes is one placer's row of a RegimeMatrix and its best regime.
type PlacerRegimes struct {
	Placer string       `json:"placer"`
	Cells  []RegimeCell `json:"cells"`
	// BestRegime is the regime in which the placer's step was fastest
	// within memory ("" when it fit in none), BestStepTime that step time.
	BestRegime   string  `json:"bestRegime,omitempty"`
	BestStepTime float64 `json:"bestStepTime,omitempty"`
}

// RegimeMatrix is a comparison run in several regimes: placer x regime.
type RegimeMatrix struct {
	Regimes []string        `json:"regimes"`
	Placers []PlacerRegimes `json:"placers"`
}

// NewRegimeMatrix builds the placer x regime matrix of rows, with the
// regimes in the order given (nil: as they appear in rows). Placers are
// sorted by their best step time, those that fit in no regime last.
func NewRegimeMatrix(rows []*runresult.Record, regimes []string) *RegimeMatrix {
	rows = sorted(rows)
	if regimes == nil {
		regimes = regimesOf(rows)
	}
	best := bestByRegime(rows)
	byKey := map[[2]string]*runresult.Record{}
	var names []string
	for _, o := range rows {
		if _, ok := byKey[[2]string{o.Placer, ""}]; !ok {
			byKey[[2]string{o.Placer, ""}] = o
			names = append(names, o.Placer)
		}
		byKey[[2]string{o.Placer, regimeOf(o)}] = o
	}
	m := &RegimeMatrix{Regimes: regimes}
	for _, n := range names {
		pr := PlacerRegimes{Placer: n}
		for _, r := range regimes {
			c := RegimeCell{Regime: r, Status: "missing"}
			if o, ok := byKey[[2]string{n, r}]; ok {
				c.Status = statusCode(o)
				if simulated(o) {
					c.StepTime = o.StepTime
				}
				c.VsBest = vsBest(o, best)
				if c.Status == "ok" && (pr.BestRegime == "" || o.StepTime < pr.BestStepTime) {
					pr.BestRegime, pr.BestStepTime = r, o.StepTime
				}
			}
			pr.Cells = append(pr.Cells, c)
		}
		m.Placers = append(m.Placers, pr)
	}
	sort.SliceStable(m.Placers, func(i, j int) bool {
		a, b := m.Placers[i], m.Placers[j]
		if (a.BestRegime == "") != (b.BestRegime == "") {
			return a.BestRegime != ""
		}
		return a.BestStepTime < b.BestStepTime
	})
	return m
}

// Table writes the matrix: a row per placer, a column per regime with its
// step time and slowdown against that regime's best (or its status), and
// the placer's best regime.
func (m *RegimeMatrix) Table(w io.Writer) error {
	align := tw.Alignment{tw.AlignLeft}
	header := []string{"placer"}
	for _, r := range m.Regimes {
		header = append(header, r)
		align = append(align, tw.AlignRight)
	}
	header = append(header, "best regime", "best step time")
	align = append(align, tw.AlignLeft, tw.AlignRight)
	t := newTable(w, align)
	t.Header(header)
	for _, p := range m.Placers {
		cells := []string{p.Placer}
		for _, c := range p.Cells {
			s := c.Status
			switch {
			case c.Status == "ok" || (c.Status == "oom" && c.StepTime > 0):
				s = units.Seconds(c.StepTime)
				if c.VsBest > 0 {
					s += fmt.Sprintf(" (%.2fx)", c.VsBest)
				}
				if c.Status == "oom" {
					s += " OOM"
				}
			}
			cells = append(cells, s)
		}
		b, bs := "-", "-"
		if p.BestRegime != "" {
			b, bs = p.BestRegime, units.Seconds(p.BestStepTime)
		}
		cells = append(cells, b, bs)
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	return t.Render()
}

// JSONWithMatrix writes {"results": [...], "matrix": {...}}: the rows of
// every regime (as JSON writes them, vsBest within each row's regime) and their placer x regime matrix.
func JSONWithMatrix(w io.Writer, rows []*runresult.Record, m *RegimeMatrix) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Results []jsonRow     `json:"results"`
		Matrix  *RegimeMatrix `json:"matrix"`
	}{jsonRows(rows), m}); err != nil {
		return fmt.Errorf("results json: %w", err)
	}
	return nil
}
