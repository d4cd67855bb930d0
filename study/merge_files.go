package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"placesim/internal/units"
	"placesim/placers"
)

// DefaultMergeMemory is the memory MergeFiles may take for the records it
// holds when its caller gives no budget: with the scenario's points and
// the decoder's working set it keeps a merge of MaxPoints records under
// 1 GB of resident memory (issue 31's bound; BenchmarkMergePeakMemory
// measures it).
const DefaultMergeMemory int64 = 640 << 20

// ErrMergeMemory marks a merge whose records would take more memory than
// its budget (MergeOptions.MaxMemory).
var ErrMergeMemory = errors.New("merge memory")

// MergeOptions are MergeFiles' settings.
type MergeOptions struct {
	// Registry resolves the scenario's placers (for its points).
	Registry *placers.Registry
	// MaxMemory bounds the memory the records held take (field "max
	// memory" in errors; 0:
	// DefaultMergeMemory): the scenario's points times RecordBytes is
	// counted before anything is allocated for them, and each record's
	// per-device figures and texts as it is read.
	MaxMemory int64
}

// MergeFiles reads the results files of the shards of one scenario (at
// paths) and merges them into complete results, sorted by point index,
// reading each file as a stream: every record is checked (verifyRecord:
// the scenario's point of its index, of its file's shard, with figures a
// simulation gives) as soon as it is decoded, and stored
// at its index, so that no file, and no record twice, is ever held in
// memory. A merge whose records would exceed opt.MaxMemory is refused
// before they are allocated, naming the points, the memory and the
// limit.
func MergeFiles(ctx context.Context, paths []string, opt MergeOptions) (*Results, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("merge: no shard results given")
	}
	budget := opt.MaxMemory
	if budget == 0 {
		budget = DefaultMergeMemory
	}
	var (
		out      *Results
		first    []byte
		pts      []Point
		have     []bool
		used     int64
		shards   shardSet
		capacity = map[string][]int64{}
	)
	for _, path := range paths {
		var sh Shard
		var part *Results
		h := resultsHandler{}
		h.head = func(r *Results) error {
			part = r
			if err := checkResultsHead(path, r); err != nil {
				return err
			}
			s, _ := json.Marshal(r.Scenario)
			defer func() { // the shards' warnings, together
				for w, ms := range r.Warnings {
					if out != nil {
						if out.Warnings == nil {
							out.Warnings = map[string][]string{}
						}
						out.Warnings[w] = ms
					}
				}
			}()
			if out == nil {
				var err error
				if pts, err = mergePoints(opt.Registry, r.Scenario, budget); err != nil {
					return err
				}
				first = s
				used = int64(len(pts)) * (RecordBytes + pointBytes)
				out = &Results{Scenario: r.Scenario, Records: make([]Record, len(pts))}
				have = make([]bool, len(pts))
			} else if !bytes.Equal(s, first) {
				return fmt.Errorf("merge: shards of different scenarios (%q and %q)", out.Scenario.Name, r.Scenario.Name)
			}
			if r.Shard != "" {
				var err error
				if sh, err = ParseShard(r.Shard); err != nil {
					return fmt.Errorf("merge: %s: %w", path, err)
				}
				if err := shards.add(r.Shard, sh.N); err != nil {
					return err
				}
			}
			return nil
		}
		h.record = func(i int, r *Record) error {
			if err := verifyRecord(path, i, r, part, sh, pts); err != nil {
				return err
			}
			if have[r.Index] {
				return fmt.Errorf("merge: %s: records[%d]: point %d appears twice", path, i, r.Index)
			}
			have[r.Index] = true
			// the point's fields are the scenario's (verified): share
			// its strings rather than keep the decoded copies, and one
			// copy of each distinct capacity list
			r.Point = pts[r.Index]
			if c, ok := capacity[string(int64Bytes(r.Capacity))]; ok {
				r.Capacity = c
			} else if len(capacity) < 1024 {
				capacity[string(int64Bytes(r.Capacity))] = r.Capacity
				used += int64(len(r.Capacity)) * 8
			} else {
				used += int64(len(r.Capacity)) * 8
			}
			used += heldBytes(r)
			if used > budget {
				return fmt.Errorf("merge: %s: records[%d]: %w: %w", path, i, ErrMergeMemory, &FieldError{Field: "max memory",
					Msg:   fmt.Sprintf("the records read so far take about %s, more than the limit of %s", units.Bytes(used), units.Bytes(budget)),
					Valid: "more than " + units.Bytes(used)})
			}
			out.Records[r.Index] = *r
			return nil
		}
		res, err := scanResults(ctx, path, h)
		if err != nil {
			return nil, err
		}
		if part == nil { // no records array at all
			if err := h.head(res); err != nil {
				return nil, err
			}
		}
	}
	if err := shards.complete(); err != nil {
		return nil, err
	}
	if err := missingPoints(out.Scenario, have); err != nil {
		return nil, err
	}
	return out, nil
}

// pointBytes is the memory of one of the scenario's points.
const pointBytes = int64(unsafe.Sizeof(Point{}))

// mergePoints returns the points of scenario s after checking that their
// records fit budget.
func mergePoints(reg *placers.Registry, s *Scenario, budget int64) ([]Point, error) {
	if err := s.Validate(reg); err != nil {
		return nil, fmt.Errorf("merge: scenario %q: %w", s.Name, err)
	}
	n, err := s.pointTotal(reg)
	if err != nil {
		return nil, fmt.Errorf("merge: scenario %q: %w", s.Name, err)
	}
	if need := int64(n) * (RecordBytes + pointBytes); need > budget {
		return nil, fmt.Errorf("merge: scenario %q: %w: %w", s.Name, ErrMergeMemory, &FieldError{Field: "max memory",
			Msg: fmt.Sprintf("its %d points' records take at least %s (%d B each), more than the limit of %s, which holds at most %d points",
				n, units.Bytes(need), RecordBytes+pointBytes, units.Bytes(budget), budget/(RecordBytes+pointBytes)),
			Valid: ">= " + units.Bytes(need)})
	}
	pts, err := s.Points(reg)
	if err != nil {
		return nil, fmt.Errorf("merge: scenario %q: %w", s.Name, err)
	}
	return pts, nil
}

// heldBytes is the memory a record holds beyond its Record value, its
// point's fields and its capacity list.
func heldBytes(r *Record) int64 {
	n := int64(len(r.PeakMemory))*8 + int64(len(r.Error)+len(r.NotComparable)+len(r.RegimeNote)+len(r.Fallback)+len(r.Rewritten))
	for _, s := range r.Relaxed {
		n += 16 + int64(len(s))
	}
	if r.OOM != nil {
		n += 128
	}
	if r.MaxLoad != nil {
		n += 8
	}
	if r.LLM != nil {
		n += 256 + int64(len(r.LLM.Layout)) + int64(len(r.LLM.Stages))*8 + int64(len(r.LLM.ExposedComm))*48
	}
	return n
}

// int64Bytes is xs as bytes, a map key.
func int64Bytes(xs []int64) []byte {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		for k := 0; k < 8; k++ {
			b = append(b, byte(x>>(8*k)))
		}
	}
	return b
}

// pointTotal is the number of points s expands into (Points' count,
// refused above MaxPoints), without expanding them.
func (s *Scenario) pointTotal(reg *placers.Registry) (int, error) {
	settings := max(len(s.Settings), 1)
	vary := 1
	if s.Vary != nil {
		v, err := ExpandRange(s.Vary.Range)
		if err != nil {
			return 0, err
		}
		vary = max(len(v), 1)
	}
	regimes, err := s.regimes()
	if err != nil {
		return 0, err
	}
	return pointCount(len(s.Workloads), len(s.Clusters), settings, vary, len(regimes), len(s.placerNames(reg)), max(len(s.Seeds), 1))
}
