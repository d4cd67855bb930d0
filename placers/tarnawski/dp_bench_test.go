package tarnawski_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/tarnawski"
	"placesim/workloads/fiddle"
	"placesim/workloads/zoo"
)

// BenchmarkDP times tarnawski-dp (preprocessing, DPL for the bound,
// ideals, DP, plan) on the eight shared workloads, and on the artifact's
// other inputs when PLACESIM_FIDDLE_ARTIFACT names them, beside the
// paper's Table 1 runtimes of its single-threaded C++ DP;
// BenchmarkDP/workers=1 is our single-core time. It reports the ideals
// and the ideal pairs walked.
func BenchmarkDP(b *testing.B) {
	type input struct{ name, path, paper string }
	var inputs []input
	for _, tc := range fiddleCases {
		inputs = append(inputs, input{tc.file, filepath.Join(sharedDir(b), tc.file), fmt.Sprintf("%d ideals, DP %s", tc.paperIDs, tc.paperDP)})
	}
	if dir := os.Getenv(artifactEnv); dir != "" {
		for _, tc := range artifactCases {
			inputs = append(inputs, input{tc.file, filepath.Join(dir, tc.file), fmt.Sprintf("%d ideals, DP %v", tc.ideals, tc.paperDP)})
		}
	}
	for _, workers := range []int{1, 0} {
		for _, in := range inputs {
			name := strings.TrimSuffix(filepath.Base(filepath.Dir(in.name)), "Graphs") + "/" + strings.TrimSuffix(filepath.Base(in.name), ".json")
			b.Run(fmt.Sprintf("workers=%d/%s", workers, name), func(b *testing.B) {
				if _, err := os.Stat(in.path); err != nil {
					b.Skip(err)
				}
				g, err := fiddle.ReadFile(in.path)
				if err != nil {
					b.Fatal(err)
				}
				req := requestFor(b, g, hintCluster(b, g))
				p, err := placers.Typed(tarnawski.NewDP)(placers.Options{"pipeline": "none", "workers": fmt.Sprint(workers)})
				if err != nil {
					b.Fatal(err)
				}
				rep := placeLoop(b, p, req)
				b.ReportMetric(rep.MaxLoad*1e3, "maxload-ms")
				b.ReportMetric(float64(rep.Ideals), "ideals")
				b.Logf("paper Table 1: %s; ours: %v", in.paper, rep.Notes)
			})
		}
	}
}

// BenchmarkDPL times tarnawski-dpl on the op-level training transformer
// of 12, 24, 48 and 96 layers, unfused (framework=tf1-graph: about 12k,
// 24k, 48k and 96k ops) on the
// paper's machine (6 accelerators + 1 CPU), reporting time, bytes and the
// segments considered.
func BenchmarkDPL(b *testing.B) {
	for _, layers := range []int{12, 24, 48, 96} {
		g, err := zoo.Build(fmt.Sprintf("zoo:transformer?granularity=op&training=true&framework=tf1-graph&layers=%d", layers))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("ops=%dk", len(g.Ops)/1000), func(b *testing.B) {
			c, err := devices.NewPreset("6xacc+1cpu")
			if err != nil {
				b.Fatal(err)
			}
			req := requestFor(b, g, c)
			p, err := placers.Typed(tarnawski.NewDPL)(placers.Options{"pipeline": "none"})
			if err != nil {
				b.Fatal(err)
			}
			rep := placeLoop(b, p, req)
			b.ReportMetric(float64(len(g.Ops)), "graph-ops")
			b.ReportMetric(rep.MaxLoad*1e3, "maxload-ms")
			b.Logf("%v", rep.Notes)
		})
	}
}

// placeLoop runs the benchmark loop of p on req, with allocations
// reported, and returns the last report.
func placeLoop(b *testing.B, p placers.Placer, req *placers.Request) *placers.Report {
	b.Helper()
	var rep *placers.Report
	var err error
	b.ReportAllocs()
	for b.Loop() {
		if _, rep, err = p.(placers.Reporter).PlaceReport(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
	return rep
}
