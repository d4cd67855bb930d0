package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateCmd(t *testing.T) {
	dir := t.TempDir()
	const header = "id\tworkload\tcluster\tgpus\tprecision\tframework\tmeasured\tunit\ttokens_per_sample\tsource\tnote\n"
	good := filepath.Join(dir, "good.tsv")
	os.WriteFile(good, []byte(header+"mlp\tzoo:mlp?training=true&batch=64\t1xV100\t1\tfp32\tpytorch\t1e9\tsamples/s\t1\tnowhere\t\n"), 0o644)
	multi := filepath.Join(dir, "multi.tsv")
	os.WriteFile(multi, []byte(header+"mlp2\tzoo:mlp?training=true&batch=64\t4xV100-pcie\t2\tfp32\tpytorch\t1e9\tsamples/s\t1\tnowhere\t\n"), 0o644)
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte(header+"mlp\tzoo:mlp?training=true&batch=64\t1xV100\tone\tfp32\tpytorch\t1\tsamples/s\t1\tnowhere\t\n"), 0o644)
	conv := filepath.Join(dir, "conv.tsv")
	os.WriteFile(conv, []byte(strings.TrimSuffix(header, "\n")+"\tprogram\n"+"rn\tzoo:resnet50?training=true&batch=32\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tnowhere\t\tdle-convnets\n"+
		"rn8\tzoo:resnet50?training=true&batch=2048\t8xV100-nvlink\t8\tamp-fp16\tpytorch\t100\tsamples/s\t1\tnowhere\t\tdle-convnets\n"), 0o644)
	tf2 := filepath.Join(dir, "tf2.tsv")
	os.WriteFile(tf2, []byte(strings.TrimSuffix(header, "\n")+"\tprogram\taccumulation\n"+"tf2\tzoo:bert?size=base&seq=128&training=true&batch=8\t1xV100\t1\tamp-fp16\ttensorflow-xla\t100\tsamples/s\t1\tnowhere\t\tdle-tf2-bert\t4\n"), 0o644)
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"text", []string{"validate", good}, 0, "1 rows: median |error|", ""},
		{"threshold", []string{"validate", good, "--max-median", "0.5"}, 1, "mlp", "above --max-median 50.0 %"},
		{"malformed", []string{"validate", bad}, 1, "", "bad.tsv:2: column gpus: \"one\""},
		{"format", []string{"validate", good, "--format", "xml"}, 1, "", "--format \"xml\""},
		{"negative", []string{"validate", good, "--max-worst", "-1"}, 1, "", "--max-worst -1"},
		{"multi-gpu", []string{"validate", multi, "--max-multi-gpu", "0.5"}, 1, "rows on more than one GPU: worst |error|", "multi-GPU row mlp2: |error| 100.0 % is above --max-multi-gpu 50.0 %"},
		{"multi-gpu negative", []string{"validate", good, "--max-multi-gpu", "-0.5"}, 1, "", "--max-multi-gpu -0.5"},
		{"explain", []string{"validate", good, "--explain", "mlp"}, 0, "optimizer (update ops)", ""},
		{"explain unknown", []string{"validate", good, "--explain", "nope"}, 1, "", `--explain: "nope": no such row id (valid: [mlp])`},
		{"input pipeline", []string{"validate", conv, "--explain", "rn"}, 0, "input pipeline: pytorch DataLoader, 8 workers per GPU on 8 cores per rank of 2x Intel Xeon E5-2698 v4 (DGX1V) at 3.60 GHz: 3.242 ms of CPU per image per core, 12.966 ms per batch (the batch x that / 8 cores), exposed 0 s", ""},
		// eight AMP ranks on the DGX-1's 40 cores are input-bound: the workers also get the main process's core while it waits
		{"input bound", []string{"validate", conv, "--explain", "rn8"}, 0, "cores: the rank's main process keeps its core", ""},
		// a program with no per-iteration part says so rather than pointing at parts above
		{"program without parts", []string{"validate", tf2, "--explain", "tf2"}, 0, "it adds no part to this iteration beyond the model's kernels", ""},
		{"input what-if", []string{"validate", conv, "--explain", "rn", "--input-cost", "1s", "--input-cost-ghz", "3.6"}, 0, "program: GPU waits for the CPU input pipeline", ""},
		{"input cost bad", []string{"validate", conv, "--input-cost", "-5ms", "--input-cost-ghz", "3"}, 1, "", `--input-cost "-5ms" (valid: a positive duration`},
		{"input cost no clock", []string{"validate", conv, "--input-cost", "5ms"}, 1, "", "--input-cost-ghz 0 (valid range: > 0"},
		{"input clock alone", []string{"validate", conv, "--input-cost-ghz", "3"}, 1, "", "--input-cost-ghz 3 without --input-cost"},
		{"explain and threshold", []string{"validate", good, "--explain", "mlp", "--max-worst", "0.1"}, 1, "", "--explain takes one row apart"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errs, tc.code, tc.out, tc.err)
			}
		})
	}
	code, out, _ := run(t, "validate", good, "--explain", "mlp", "--format", "json")
	var e struct {
		StepTime float64
		Parts    []struct {
			Part    string
			Seconds float64
		}
	}
	if err := json.Unmarshal([]byte(out), &e); code != 0 || err != nil || !(e.StepTime > 0) || len(e.Parts) == 0 {
		t.Fatalf("explain json: exit %d, %v, %+v", code, err, e)
	}
	code, out, _ = run(t, "validate", good, "--format", "json")
	var v struct {
		Rows []struct {
			ID                         string
			Measured, Simulated, Error float64
		}
		MedianAbsError, WorstAbsError float64
	}
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Rows) != 1 || v.Rows[0].ID != "mlp" || !(v.Rows[0].Simulated > 0) {
		t.Fatalf("json: exit %d, %v, %+v", code, err, v)
	}
}
