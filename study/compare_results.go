package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"placesim/devices"
	"placesim/placers"
)

// CompareScenario is the scenario a comparison is: its workload, cluster,
// placers, data-safe placer options, seed, estimates, timeout, regimes and
// all-reduce. compare records it in its results.json (the one results
// schema that run, sweep and merge write) so that check can re-run it.
// Options that name an executable or a directory (TrustBoundary) are left
// out: a results file may not choose them; check takes them from --opt.
func (req CompareRequest) CompareScenario(reg *placers.Registry, names []string, regimes []Regime) (*Scenario, error) {
	cluster := req.Cluster
	if cluster == "" {
		cluster = WorkloadMachine
	}
	s := &Scenario{Name: "compare", Description: "placesim compare",
		Workloads: []string{req.Workload}, Clusters: []string{cluster},
		Placers: append([]string(nil), names...), Seeds: []uint64{req.Base.Seed},
		AllReduce: req.AllReduce}
	if len(regimes) > 1 || (len(regimes) == 1 && regimes[0].String() != "step") {
		s.Regimes = RegimeList(regimes)
	}
	if e := req.Base.Estimates; e.Mode != "" && e.Mode != devices.Exact {
		s.Estimates = &EstimateSpec{Mode: string(e.Mode), Sigma: e.Sigma}
	}
	if req.Timeout > 0 {
		s.Timeout = req.Timeout.String()
	}
	if len(req.Base.Options) > 0 {
		per, err := reg.Resolve(names, req.Base.Options)
		if err != nil {
			return nil, err
		}
		for _, p := range names {
			for k, v := range per[p] {
				one := map[string]map[string]string{p: {k: v}}
				if CheckDataOptions(reg, one) != nil {
					continue // an executable or a directory: never recorded
				}
				if s.PlacerOptions == nil {
					s.PlacerOptions = map[string]map[string]string{}
				}
				if s.PlacerOptions[p] == nil {
					s.PlacerOptions[p] = map[string]string{}
				}
				s.PlacerOptions[p][k] = v
			}
		}
	}
	return s, nil
}

// compareResults is a comparison's rows as results of scenario s (see
// CompareScenario), each row the record of its point, and their
// placement times. Every point of s has its row.
func compareResults(s *Scenario, reg *placers.Registry, rows []*Record) (*Results, []Timing, error) {
	pts, err := s.Points(reg)
	if err != nil {
		return nil, nil, err
	}
	byKey := make(map[string]*Record, len(rows))
	for _, o := range rows {
		byKey[o.Placer+"\x00"+o.Regime] = o
	}
	res := &Results{Scenario: s}
	var timings []Timing
	for _, p := range pts {
		o, ok := byKey[p.Placer+"\x00"+p.Regime]
		if !ok {
			return nil, nil, fmt.Errorf("results: no row of placer %s in regime %s", p.Placer, p.Regime)
		}
		res.Records = append(res.Records, recordOf(p, o))
		if o.Graph != nil && len(o.Graph.Warnings) > 0 {
			if res.Warnings == nil {
				res.Warnings = map[string][]string{}
			}
			res.Warnings[p.Workload] = o.Graph.Warnings
		}
		if o.PlaceTime != nil {
			timings = append(timings, Timing{Index: p.Index, PlaceTime: *o.PlaceTime})
		}
	}
	sort.SliceStable(res.Records, func(i, j int) bool { return res.Records[i].Index < res.Records[j].Index })
	return res, timings, nil
}

// encodeCompareResults is results.json and results.timings.json (nil
// when no row measured a placement time) of a comparison.
func encodeCompareResults(s *Scenario, reg *placers.Registry, rows []*Record, stamp *Stamp) (results, timings []byte, err error) {
	res, ts, err := compareResults(s, reg, rows)
	if err != nil {
		return nil, nil, err
	}
	res.Stamp = stamp
	var b bytes.Buffer
	if err := EncodeResults(&b, res); err != nil {
		return nil, nil, err
	}
	if len(ts) > 0 {
		tb, _ := json.MarshalIndent(ts, "", "  ")
		timings = append(tb, '\n')
	}
	return b.Bytes(), timings, nil
}
