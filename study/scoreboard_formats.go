package study

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"placesim/reports"
)

// ScenarioBoard is one scenario of reproduce: its name, the folder its
// results went to and its scoreboard.
type ScenarioBoard struct {
	Name, Dir string
	Board     *Board
}

// boardJSON is a Board as WriteScoreboardsJSON writes it (Tau null when
// undefined: fewer than two placers, or all tied).
type boardJSON struct {
	Name     string      `json:"name"`
	Dir      string      `json:"dir"`
	Title    string      `json:"title"`
	Metric   string      `json:"metric"`
	Cells    []cellJSON  `json:"cells"`
	Rows     []rowJSON   `json:"rows"`
	OOMAgree int         `json:"oomAgree"`
	OOMCells int         `json:"oomCells"`
	Claims   []claimJSON `json:"claims"`
}

type cellJSON struct {
	PaperCell
	// Simulated is null when no record ran (Missing says why).
	Simulated *float64 `json:"simulated"`
	SimOOM    bool     `json:"simOOM,omitempty"`
	Missing   string   `json:"missing,omitempty"`
}

type rowJSON struct {
	Table string   `json:"table"`
	Row   string   `json:"row"`
	Agree int      `json:"agree"`
	Pairs int      `json:"pairs"`
	Tau   *float64 `json:"tau"`
	Held  []string `json:"held,omitempty"`
}

type claimJSON struct {
	PaperClaim
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
}

// WriteScoreboardsJSON writes reproduce's scoreboards as one JSON object:
// {"scenarios": [...], "skipped": [...]}, each scenario with its cells
// (the paper's value beside the simulated one), its rows' ordering
// agreement and Kendall's tau, OOM agreement and claim verdicts.
func WriteScoreboardsJSON(w io.Writer, boards []ScenarioBoard, skipped []string) error {
	out := struct {
		Scenarios []boardJSON `json:"scenarios"`
		Skipped   []string    `json:"skipped"`
	}{Scenarios: []boardJSON{}, Skipped: append([]string{}, skipped...)}
	for _, sb := range boards {
		b := sb.Board
		v := boardJSON{Name: sb.Name, Dir: sb.Dir, Title: b.Title, Metric: b.Metric, OOMAgree: b.OOMAgree, OOMCells: b.OOMCells,
			Cells: []cellJSON{}, Rows: []rowJSON{}, Claims: []claimJSON{}}
		for _, c := range b.Cells {
			cj := cellJSON{PaperCell: c.PaperCell, SimOOM: c.SimOOM, Missing: c.Missing}
			if c.Missing == "" && !c.SimOOM {
				sim := c.Simulated
				cj.Simulated = &sim
			}
			v.Cells = append(v.Cells, cj)
		}
		for _, r := range b.Rows {
			rj := rowJSON{Table: r.Table, Row: r.Row, Agree: r.Agree, Pairs: r.Pairs, Held: r.Held}
			if !math.IsNaN(r.Tau) {
				tau := r.Tau
				rj.Tau = &tau
			}
			v.Rows = append(v.Rows, rj)
		}
		for _, c := range b.Claims {
			v.Claims = append(v.Claims, claimJSON{PaperClaim: c.PaperClaim, Verdict: c.Verdict, Detail: c.Detail})
		}
		out.Scenarios = append(out.Scenarios, v)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("scoreboards json: %w", err)
	}
	return nil
}

// WriteScoreboardsCSV writes reproduce's scoreboards one line per
// published cell: scenario, table, row, workload, cluster, settings,
// regime, placer, the metric, the paper's value and OOM, the simulated
// value (empty when none ran or it ran out of memory), its OOM and why it
// is missing.
func WriteScoreboardsCSV(w io.Writer, boards []ScenarioBoard) error {
	header := []string{"scenario", "table", "row", "workload", "cluster", "settings", "regime", "placer", "metric",
		"paper", "paperOOM", "simulated", "simOOM", "missing"}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var recs [][]string
	for _, sb := range boards {
		for _, c := range sb.Board.Cells {
			paper, sim := "", ""
			if !c.OOM {
				paper = f(c.Value)
			}
			if c.Missing == "" && !c.SimOOM {
				sim = f(c.Simulated)
			}
			recs = append(recs, []string{sb.Name, c.Table, c.Row, c.Workload, c.Cluster, c.Settings, c.Regime, c.Placer, sb.Board.Metric,
				paper, strconv.FormatBool(c.OOM), sim, strconv.FormatBool(c.SimOOM), c.Missing})
		}
	}
	if err := reports.WriteCSV(w, header, recs); err != nil {
		return fmt.Errorf("scoreboards csv: %w", err)
	}
	return nil
}
