package study_test

import (
	"context"
	"strings"
	"testing"

	"placesim/devices"
	"placesim/engine"
	"placesim/placers/builtin"
	"placesim/study"
	"placesim/workloads"
)

func mlpTraining(t *testing.T) *workloads.Graph {
	t.Helper()
	g, err := study.LoadWorkload("zoo:mlp?training=true&batch=64")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestParseStages: a stage file names forward layers or ops per stage; the
// gradients and updates follow; bad files are errors naming the field.
func TestParseStages(t *testing.T) {
	t.Parallel()
	g := mlpTraining(t)
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file string
		devs       []int  // stage devices, when ok
		err        string // error text, when not
	}{
		{"layers with devices", `{"stages": [{"device": "gpu3", "layers": ["input", "fc1"]}, {"device": "gpu1", "layers": ["fc2", "fc3", "fc4"]}]}`, []int{3, 1}, ""},
		{"default devices", `{"stages": [{"layers": ["input", "fc1", "fc2"]}, {"layers": ["fc3"], "ops": ["fc4/matmul", "fc4/bias", "fc4/relu"]}]}`, []int{0, 1}, ""},
		{"unknown field", `{"stages": [{"device": "gpu0", "layer": ["input"]}]}`, nil, `unknown field "layer"`},
		{"no stages", `{"stages": []}`, nil, "field stages is empty"},
		{"unknown layer", `{"stages": [{"layers": ["input", "fc1", "fc2", "fc3", "fc9"]}]}`, nil, `stages[0].layers[4] = "fc9"`},
		{"unknown op", `{"stages": [{"ops": ["nope"]}]}`, nil, `stages[0].ops[0] = "nope"`},
		{"unknown device", `{"stages": [{"device": "tpu0", "layers": ["input"]}]}`, nil, `stages[0].device = "tpu0" is not a device`},
		{"overlap", `{"stages": [{"layers": ["input", "fc1", "fc2"]}, {"layers": ["fc2", "fc3", "fc4"]}]}`, nil, "must not overlap"},
		{"forward op in no stage", `{"stages": [{"layers": ["input", "fc1"]}, {"layers": ["fc2", "fc3"]}]}`, nil, `forward op "fc4/matmul" is in no stage`},
		{"empty stage", `{"stages": [{"layers": ["input", "fc1", "fc2", "fc3", "fc4"]}, {}]}`, nil, "stages[1] names no layer and no op"},
		{"too many stages for the accelerators", `{"stages": [{"layers": ["input"]}, {"layers": ["fc1"]}, {"layers": ["fc2"]}, {"layers": ["fc3"]}, {"layers": ["fc4"]}]}`, nil, "stages[4] has no device"},
		{"not JSON", `stages: []`, nil, "want {"},
		{"trailing data", `{"stages": [{"layers": ["input", "fc1", "fc2", "fc3", "fc4"]}]} {}`, nil, "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dev, stages, err := study.ParseStages([]byte(tc.file), "s.json", g, c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `"s.json"`) {
					t.Fatalf("error %v, want one naming s.json and saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(stages) != len(tc.devs) {
				t.Fatalf("%d stages, want %d", len(stages), len(tc.devs))
			}
			count := 0
			for s, ops := range stages {
				for _, v := range ops {
					count++
					if dev[v] != tc.devs[s] {
						t.Errorf("op %q of stage %d on device %d, want %d", g.Ops[v].Name, s, dev[v], tc.devs[s])
					}
					// an op's gradient and update share its stage
					if g.Ops[v].Role != workloads.Forward && !strings.HasPrefix(g.Ops[v].Name, g.Ops[v].Layer+"/") {
						t.Errorf("op %q is not in its layer", g.Ops[v].Name)
					}
				}
			}
			if count != len(g.Ops) {
				t.Errorf("stages hold %d ops, graph has %d", count, len(g.Ops))
			}
		})
	}
}

// TestRunPipelineAndDataParallel: a spec with a pipeline and data
// parallelism plays the placer's plan pipelined on the first half of the
// accelerators and replicated on the other half.
func TestRunPipelineAndDataParallel(t *testing.T) {
	t.Parallel()
	g := mlpTraining(t)
	c, err := devices.NewPreset("8xV100-nvlink")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	spec := study.Spec{Placer: "round-robin", Reproducible: true, Regime: study.Regime{
		Pipeline:     &engine.Pipeline{Schedule: engine.OneFOneB, MicroBatches: 8},
		DataParallel: &engine.DataParallel{Replicas: 2}}}
	o, err := study.Run(context.Background(), reg, g, c, spec)
	if err != nil {
		t.Fatal(err)
	}
	if o.Error != "" {
		t.Fatal(o.Error)
	}
	if o.Result.Pipeline == nil || o.Result.DataParallel == nil {
		t.Fatalf("pipeline %v, data parallel %v: want both", o.Result.Pipeline, o.Result.DataParallel)
	}
	// round-robin on the 4-GPU placement cluster deals ops over gpu0-gpu3:
	// non-contiguous parts, so more stages than devices; replica 1 on the
	// other four GPUs
	if len(o.Result.Pipeline.Stages) <= 4 {
		t.Fatalf("%d stages, want more than the 4 devices of a non-contiguous split", len(o.Result.Pipeline.Stages))
	}
	for s, st := range o.Result.Pipeline.Stages {
		if len(st.Devices) != 2 || st.Devices[0] == st.Devices[1] {
			t.Errorf("stage %d on %v, want two distinct devices", s, st.Devices)
		}
	}
	for _, d := range o.Plan.Device {
		if d >= 4 {
			t.Errorf("replica 0 uses device %d, want one of the first 4 accelerators", d)
		}
	}
	if o.Plan.Order != nil || o.Plan.Priority != nil {
		t.Error("the pipeline plan keeps an order or priority")
	}
}

// FuzzParseStages: any input is a stage split that covers the graph once,
// or an error; never a panic.
func FuzzParseStages(f *testing.F) {
	for _, seed := range []string{
		`{"stages": [{"device": "gpu3", "layers": ["input", "fc1"]}, {"device": "gpu1", "layers": ["fc2", "fc3", "fc4"]}]}`,
		`{"stages": [{"layers": ["input", "fc1", "fc2"]}, {"layers": ["fc3"], "ops": ["fc4/matmul", "fc4/bias", "fc4/relu"]}]}`,
		`{"stages": []}`, `{"stages": [{}]}`, `{`, `null`, `{"stages": [{"ops": ["fc4/relu/grad"], "layers": ["input"]}]}`,
	} {
		f.Add([]byte(seed))
	}
	g, err := study.LoadWorkload("zoo:mlp?training=true&batch=64")
	if err != nil {
		f.Fatal(err)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dev, stages, err := study.ParseStages(data, "fuzz.json", g, c)
		if err != nil {
			return
		}
		seen := make([]int, len(g.Ops))
		for _, ops := range stages {
			for _, v := range ops {
				seen[v]++
				if dev[v] < 0 || dev[v] >= len(c.Devices) {
					t.Fatalf("op %d on device %d", v, dev[v])
				}
			}
		}
		for v, n := range seen {
			if n != 1 {
				t.Fatalf("op %q in %d stages", g.Ops[v].Name, n)
			}
		}
	})
}
