package tarnawski_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"placesim/placers"
	"placesim/placers/tarnawski"
)

// BenchmarkDP times tarnawski-dp (preprocessing, ideals, DP, plan) on the
// eight shared workloads, beside the paper's Table 1 runtimes of its
// single-threaded C++ DP; BenchmarkDP/workers=1 is our single-core time.
func BenchmarkDP(b *testing.B) {
	for _, workers := range []int{1, 0} {
		for _, tc := range fiddleCases {
			name := strings.TrimSuffix(filepath.Base(filepath.Dir(tc.file)), "Graphs") + "/" + strings.TrimSuffix(filepath.Base(tc.file), ".json")
			b.Run(fmt.Sprintf("workers=%d/%s", workers, name), func(b *testing.B) {
				req := fiddleRequest(b, tc.file)
				p, err := tarnawski.NewDP(placers.Options{"pipeline": "none", "workers": fmt.Sprint(workers)})
				if err != nil {
					b.Fatal(err)
				}
				var rep *placers.Report
				for b.Loop() {
					if _, rep, err = p.(placers.Reporter).PlaceReport(context.Background(), req); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(rep.MaxLoad*1e3, "maxload-ms")
				b.Logf("paper Table 1: %d ideals, DP %s; ours: %v", tc.paperIDs, tc.paperDP, rep.Notes)
			})
		}
	}
}
