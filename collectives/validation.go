package collectives

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"placesim/devices"
	"placesim/internal/readfile"
	"placesim/internal/tsv"
)

// Published is one published nccl-tests result (a row of
// validation/nccl-tests.tsv).
type Published struct {
	ID, System string
	Op         Kind
	GPUs       int
	Size       int64
	// BusBW is the published bus bandwidth in bytes/s.
	BusBW float64
	// Acceptance marks the rows held to the tighter tolerance (the
	// issue's acceptance set).
	Acceptance   bool
	Source, Note string
}

// Checked is a published row with placesim's prediction.
type Checked struct {
	Published
	Estimate
	// Error is placesim's busbw / published busbw - 1.
	Error float64
}

// LoadPublished reads a tab-separated file of published nccl-tests
// results: a header naming the columns id, system, op, gpus, size,
// busbw (GB/s), acceptance (yes/no), source, note; '#' lines and blank
// lines are skipped.
func LoadPublished(path string) ([]Published, error) {
	data, err := readfile.Read(path, readfile.MaxData)
	if err != nil {
		return nil, fmt.Errorf("read published collectives: %w", err)
	}
	rows, err := ParsePublished(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// ParsePublished parses the contents of a LoadPublished file.
func ParsePublished(data []byte) ([]Published, error) {
	need := []string{"id", "system", "op", "gpus", "size", "busbw", "acceptance", "source"}
	tab, err := tsv.Read(bytes.NewReader(data), need)
	if err != nil {
		return nil, err
	}
	var out []Published
	ids := map[string]bool{}
	for _, row := range tab.Rows {
		line, get := row.Line, row.Get
		bad := func(field, rng string) error {
			return fmt.Errorf("line %d: field %s = %q (valid: %s)", line, field, get(field), rng)
		}
		p := Published{ID: get("id"), System: get("system"), Source: get("source"), Note: get("note")}
		if p.ID == "" || ids[p.ID] {
			return nil, bad("id", "a unique, non-empty name")
		}
		ids[p.ID] = true
		if p.System == "" {
			return nil, bad("system", "a system spec such as dgx-h100:nodes=2")
		}
		if p.Source == "" {
			return nil, bad("source", "where the figure stands")
		}
		if p.Op, err = ParseKind(get("op")); err != nil {
			return nil, fmt.Errorf("line %d: field op: %w", line, err)
		}
		if p.GPUs, err = strconv.Atoi(get("gpus")); err != nil || p.GPUs < 1 || p.GPUs > devices.MaxSystemGPUs {
			return nil, bad("gpus", fmt.Sprintf("an integer in [1, %d]", devices.MaxSystemGPUs))
		}
		if p.Size, err = strconv.ParseInt(get("size"), 10, 64); err != nil || p.Size < 1 {
			return nil, bad("size", "bytes, >= 1")
		}
		gbs, err := strconv.ParseFloat(get("busbw"), 64)
		if err != nil || !(gbs > 0) || math.IsInf(gbs, 0) {
			return nil, bad("busbw", "GB/s, > 0")
		}
		p.BusBW = gbs * 1e9
		switch get("acceptance") {
		case "yes":
			p.Acceptance = true
		case "no":
		default:
			return nil, bad("acceptance", "yes, no")
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rows")
	}
	return out, nil
}

// Check predicts every row on its system (the first GPUs ranks of it)
// and gives each its error.
func Check(rows []Published) ([]Checked, error) {
	clusters := map[string]*devices.Cluster{}
	var out []Checked
	for _, p := range rows {
		c, ok := clusters[p.System]
		if !ok {
			var err error
			if c, err = devices.NewSystem(p.System); err != nil {
				return nil, fmt.Errorf("row %s: %w", p.ID, err)
			}
			clusters[p.System] = c
		}
		acc := c.Accelerators()
		if p.GPUs > len(acc) {
			return nil, fmt.Errorf("row %s: gpus = %d (valid range: [1, %d], the GPUs of %s)", p.ID, p.GPUs, len(acc), p.System)
		}
		grp := acc[:p.GPUs]
		if p.Op == SendRecv {
			grp = []int{acc[0], acc[p.GPUs-1]}
		}
		e, err := Time(c, grp, p.Op, p.Size)
		if err != nil {
			return nil, fmt.Errorf("row %s: %w", p.ID, err)
		}
		out = append(out, Checked{Published: p, Estimate: e, Error: e.BusBW/p.BusBW - 1})
	}
	return out, nil
}
