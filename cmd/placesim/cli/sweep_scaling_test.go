package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"placesim/study"
)

// TestSweepGPUsScaling: --vary gpus with --layout: weak scaling grows the
// global batch with dp, strong keeps it; both write the scaling chart.
func TestSweepGPUsScaling(t *testing.T) {
	for _, tc := range []struct {
		scaling string
		gbs     []int
	}{{"weak", []int{8, 16, 32}}, {"strong", []int{8, 8, 8}}} {
		t.Run(tc.scaling, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := run(t, "sweep", "-w", "zoo:llama3.1-8b?layers=8&seq=4096", "-c", "dgx-h100", "--layout", "tp=2,pp=2,dp=1,sp,mbs=1,gbs=8",
				"--vary", "gpus=4,8,16", "--scaling", tc.scaling, "-o", dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(out, "efficiency %") {
				t.Errorf("no scaling table:\n%s", out)
			}
			res, err := study.ReadResults(filepath.Join(dir, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != 3 {
				t.Fatalf("%d records", len(res.Records))
			}
			for i, rec := range res.Records {
				r := rec.LLM
				if r.GPUs != 4<<i || r.GlobalBatch != tc.gbs[i] || !strings.Contains(r.Layout, "dp=") {
					t.Errorf("row %d: %d GPUs, gbs %d, layout %s (want %d GPUs, gbs %d)", i, r.GPUs, r.GlobalBatch, r.Layout, 4<<i, tc.gbs[i])
				}
				if !(r.TokensPerSecPerGPU > 0) || !(r.MFU > 0 && r.MFU < 1) {
					t.Errorf("row %d: %g tokens/s/GPU, MFU %g", i, r.TokensPerSecPerGPU, r.MFU)
				}
			}
			// the unsized system grows with the GPUs: its legend gives no size
			svg, err := os.ReadFile(filepath.Join(dir, "sweep_scaling.svg"))
			if err != nil || !strings.Contains(string(svg), "sized to the layout") || strings.Contains(string(svg), "1 node") {
				t.Errorf("scaling chart's legend: want the system sized to the layout, not 1 node (%v)", err)
			}
			for _, f := range []string{"sweep_scaling.png", "sweep_scaling.svg", "sweep_step_time.png"} {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

func TestSweepGPUsBadValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "gpus=4,6", "--allow-failures=false"}, "multiple of tp*pp*cp = 4"},
		{[]string{"--vary", "gpus=4,8", "--scaling", "medium"}, "--scaling \"medium\""},
	} {
		args := append([]string{"sweep", "-w", "zoo:llama3.1-8b?layers=8&seq=4096", "-c", "dgx-h100", "--layout", "tp=2,pp=2,dp=1,sp,mbs=1,gbs=8", "-o", t.TempDir()}, tc.args...)
		code, _, errs := run(t, args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", tc.args, code, errs, tc.want)
		}
	}
}
