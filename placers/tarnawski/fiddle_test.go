package tarnawski_test

import (
	"path/filepath"
	"placesim/internal/sharedtest"
	"testing"

	"placesim/devices"
	"placesim/placers"
	"placesim/workloads"
	"placesim/workloads/fiddle"
)

// fiddleCase is one of the eight shared workloads with the optimum of its
// README (ms per sample) and the paper's Table 1 DP runtime.
type fiddleCase struct {
	file     string
	optimum  float64 // ms per sample
	paperDP  string  // Table 1 "DP (contiguous) runtime"
	paperIDs int     // Table 1 ideals
}

var fiddleCases = []fiddleCase{
	{"LayerGraphs/bert24_inference.json", 17.789906, "0s", 30},
	{"LayerGraphs/bert24_training.json", 41.745812, "0s", 30},
	{"LayerGraphs/resnet50_inference.json", 33.774666, "0s", 242},
	{"LayerGraphs/resnet50_training.json", 78.631813, "1s", 242},
	{"OperatorGraphs/bert_l-3_inference.json", 27.918568, "1s", 1428},
	{"OperatorGraphs/bert_l-3_training.json", 65.303149, "8s", 2774},
	{"OperatorGraphs/resnet50_inference.json", 124.348850, "0s", 241},
	{"OperatorGraphs/resnet50_training.json", 255.194416, "2s", 258},
}

// sharedDir is ../shared/workloads/msr-fiddle from the repository root.
func sharedDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Fiddle(t)
}

// fiddleRequest loads a shared workload and the machine it describes.
func fiddleRequest(t testing.TB, file string) *placers.Request {
	t.Helper()
	g, err := fiddle.ReadFile(filepath.Join(sharedDir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return requestFor(t, g, hintCluster(t, g))
}

func hintCluster(t testing.TB, g *workloads.Graph) *devices.Cluster {
	t.Helper()
	c, err := devices.AccCPU("hint", g.Hint.Accelerators, g.Hint.CPUs, g.Hint.AcceleratorMemory)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func requestFor(t testing.TB, g *workloads.Graph, c *devices.Cluster) *placers.Request {
	t.Helper()
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{Mode: devices.Exact})
	if err != nil {
		t.Fatal(err)
	}
	return &placers.Request{Graph: g, Cluster: c, Estimates: est, Seed: 1}
}
