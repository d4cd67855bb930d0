package engine_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_results.txt from the current engine (for commits that mean to change simulated results)")

// goldenFile holds the simulated results of every goldenCase. Regenerate
// with `go test ./engine -run TestGoldenResults -update` and read the diff:
// one block per case, one line per device, link, stage and all-reduce.
const goldenFile = "testdata/golden_results.txt"

// goldenRegime builds the plan of one execution regime for g on c.
type goldenRegime struct {
	name string
	plan func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error)
}

// onDevice puts every op on device 0.
func onDevice(g *workloads.Graph) []int { return make([]int, len(g.Ops)) }

// stagesOn splits g into even stages on devices 0..p-1.
func stagesOn(g *workloads.Graph, p int) ([]int, [][]int, error) {
	devs := make([]int, p)
	for i := range devs {
		devs[i] = i
	}
	return engine.EvenStages(g, devs)
}

func pipelineRegime(name string, p int, sched engine.Schedule, m int, recompute bool, replicas int) goldenRegime {
	return goldenRegime{name, func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		dev, stages, err := stagesOn(g, p)
		if err != nil {
			return nil, err
		}
		plan := &engine.Plan{Device: dev, Pipeline: &engine.Pipeline{Schedule: sched, MicroBatches: m, Stages: stages, Recompute: recompute}}
		if replicas > 1 {
			plan.DataParallel = &engine.DataParallel{Replicas: replicas}
		}
		return plan, nil
	}}
}

// goldenRegimes are the execution regimes the golden test plays.
var goldenRegimes = []goldenRegime{
	{"step-single", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		return &engine.Plan{Device: onDevice(g)}, nil
	}},
	{"step-split2", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		dev, _, err := stagesOn(g, 2)
		return &engine.Plan{Device: dev}, err
	}},
	{"step-roundrobin-priority", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		p := &engine.Plan{Device: make([]int, len(g.Ops)), Priority: make([]float64, len(g.Ops))}
		for i := range p.Device {
			p.Device[i] = i % 2
			p.Priority[i] = float64(-i % 7)
		}
		return p, nil
	}},
	pipelineRegime("gpipe-p2-m4", 2, engine.GPipe, 4, false, 1),
	pipelineRegime("1f1b-p2-m4", 2, engine.OneFOneB, 4, false, 1),
	pipelineRegime("pipedream-p2-m4", 2, engine.PipeDream, 4, false, 1),
	pipelineRegime("1f1b-p2-m4-recompute", 2, engine.OneFOneB, 4, true, 1),
	{"dp4", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		return &engine.Plan{Device: onDevice(g), DataParallel: &engine.DataParallel{Replicas: 4}}, nil
	}},
	{"dp8", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		return &engine.Plan{Device: onDevice(g), DataParallel: &engine.DataParallel{Replicas: 8}}, nil
	}},
	{"dp4-overlap-bucket", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		return &engine.Plan{Device: onDevice(g), DataParallel: &engine.DataParallel{Replicas: 4, Overlap: true, BucketBytes: 4 << 20}}, nil
	}},
	pipelineRegime("hybrid-1f1b-p2-m2-dp2", 2, engine.OneFOneB, 2, false, 2),
	{"1f1b-m2-derived-stages", func(g *workloads.Graph, c *devices.Cluster) (*engine.Plan, error) {
		// every third op on device 1: non-contiguous parts, virtual stages
		p := &engine.Plan{Device: make([]int, len(g.Ops)), Pipeline: &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 2}}
		for i := range p.Device {
			p.Device[i] = min(i%3, 1)
		}
		return p, nil
	}},
}

// goldenModels and goldenClusters are crossed with goldenRegimes (models
// small enough that the whole table plays in about a second).
var (
	goldenModels = []string{
		"mlp?training=true",
		"vgg19?training=true&granularity=layer",
		"resnet50?training=true&granularity=layer",
		"transformer?training=true&granularity=layer&layers=2",
		"bert?layers=2&training=true",
		"resnet50?training=true&batch=896&bn=fused",
	}
	goldenClusters = []string{"4xV100-pcie", "8xV100-nvlink", "8xV100-nvlink-2node", "8xA100-nvswitch"}
)

// TestGoldenResults pins what the engine simulates for zoo models x
// presets x execution regimes, so that a refactor that means to change
// nothing changes nothing (numbers rounded to 6 significant digits).
func TestGoldenResults(t *testing.T) {
	var out bytes.Buffer
	for _, spec := range goldenModels {
		g, err := zoo.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, cn := range goldenClusters {
			c, err := devices.NewPreset(cn)
			if err != nil {
				t.Fatal(err)
			}
			for _, reg := range goldenRegimes {
				fmt.Fprintf(&out, "== %s / %s / %s\n", spec, cn, reg.name)
				plan, err := reg.plan(g, c)
				if err != nil {
					fmt.Fprintf(&out, "plan error: %v\n", err)
					continue
				}
				// every replica played: the reference that
				// TestSymmetryMatchesFull holds the reduced runs to
				r, err := engine.Simulate(g, c, plan, engine.Options{FullReplicas: true})
				if err != nil {
					fmt.Fprintf(&out, "error: %v\n", err)
					continue
				}
				writeGolden(&out, r)
			}
		}
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run TestGoldenResults -update)", err)
	}
	if got := out.Bytes(); !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		shown := 0
		for i := 0; i < max(len(gl), len(wl)) && shown < 20; i++ {
			var a, b string
			if i < len(gl) {
				a = gl[i]
			}
			if i < len(wl) {
				b = wl[i]
			}
			if a != b {
				t.Errorf("line %d:\n got  %s\n want %s", i+1, a, b)
				shown++
			}
		}
		t.Errorf("simulated results differ from %s (if the change is meant, rerun with -update and say so in the commit)", goldenFile)
	}
}

// g6 rounds a float to 6 significant digits.
func g6(x float64) string { return fmt.Sprintf("%.6g", x) }

// writeGolden prints a result in a stable, diffable form.
func writeGolden(w *bytes.Buffer, r *engine.Result) {
	fmt.Fprintf(w, "step %s throughput %s moved %d transfers %d\n", g6(r.StepTime), g6(r.Throughput), r.BytesMoved, r.TransferCount)
	if r.OrderRelaxed != "" {
		fmt.Fprintf(w, "order relaxed\n")
	}
	if o := r.OOM; o != nil {
		fmt.Fprintf(w, "oom %s at %s op %q %s requested %d in use %d\n", o.DeviceName, g6(o.Time), o.OpName, o.What, o.Requested, o.InUse)
	}
	for _, d := range r.Devices {
		if d.Ops == 0 && d.PeakMemory == 0 {
			continue
		}
		fmt.Fprintf(w, "  device %s ops %d busy %s peak %d params %d\n", d.Name, d.Ops, g6(d.Busy), d.PeakMemory, d.ParamBytes)
	}
	for _, l := range r.Links {
		fmt.Fprintf(w, "  link %s->%s %s bytes %d transfers %d busy %s\n", l.From, l.To, l.Kind, l.Bytes, l.Transfers, g6(l.Busy))
	}
	if p := r.Pipeline; p != nil {
		fmt.Fprintf(w, "  pipeline period %s bubble %s\n", g6(p.Period), g6(p.BubbleFraction))
		for i, s := range p.Stages {
			fmt.Fprintf(w, "    stage %d ops %d busy %s peak %d versions %d\n", i, s.Ops, g6(s.Busy), s.PeakMemory, s.WeightVersions)
		}
	}
	if dp := r.DataParallel; dp != nil {
		fmt.Fprintf(w, "  data parallel %s gradients %d algbw %s busbw %s\n", dp.Algorithm, dp.GradientBytes, g6(dp.AlgBW), g6(dp.BusBW))
		for _, a := range dp.AllReduces {
			fmt.Fprintf(w, "  allreduce stage %d bucket %d round %d bytes %d %s start %s end %s\n", a.Stage, a.Bucket, a.Round, a.Bytes, a.Algorithm, g6(a.Start), g6(a.End))
		}
	}
}
