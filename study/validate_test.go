package study_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/placers/builtin"
	"placesim/study"
)

const validationHeader = "id\tworkload\tcluster\tgpus\tprecision\tframework\tmeasured\tunit\ttokens_per_sample\tsource\tnote\n"

func writeValidation(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "v.tsv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validateText writes body as a validation file, reads it and simulates
// its rows with the built-in placers.
func validateText(t *testing.T, body string) *study.ValidationSummary {
	t.Helper()
	path := writeValidation(t, body)
	rows, err := study.ReadValidation(path)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s, err := study.Validate(context.Background(), reg, rows, filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadValidationErrors: a malformed file is an error naming the line
// and the column.
func TestReadValidationErrors(t *testing.T) {
	t.Parallel()
	good := "a\tzoo:mlp?training=true&batch=8\t1xV100\t1\tfp32\tpytorch\t100\tsamples/s\t1\tsrc\t\n"
	tests := []struct{ name, body, want string }{
		{"no header column", "id\tworkload\n", "header lacks column \"cluster\""},
		{"field count", validationHeader + "a\tzoo:mlp\n", ":2: 2 tab-separated fields, the header has 11"},
		{"gpus", validationHeader + strings.Replace(good, "\t1\tfp32", "\t0\tfp32", 1), ":2: column gpus: \"0\""},
		{"precision", validationHeader + strings.Replace(good, "fp32", "fp12", 1), ":2: column precision: \"fp12\""},
		{"framework", validationHeader + strings.Replace(good, "pytorch", "caffe", 1), ":2: column framework: \"caffe\""},
		{"measured", validationHeader + strings.Replace(good, "\t100\t", "\t-3\t", 1), ":2: column measured: \"-3\""},
		{"unit", validationHeader + strings.Replace(good, "samples/s", "img/s", 1), ":2: column unit: \"img/s\""},
		{"duplicate id", validationHeader + good + "# comment\n" + good, ":4: column id: \"a\" already used on line 2"},
		{"not zoo", validationHeader + strings.Replace(good, "zoo:mlp", "mlp.json", 1), ":2: column workload"},
		{"no rows", validationHeader, "no rows after the header"},
		{"program", strings.Replace(validationHeader, "note\n", "note\tprogram\n", 1) + strings.TrimSuffix(good, "\n") + "\tfairsek\n",
			":2: column program: \"fairsek\" (valid: -, dle-convnets, dle-pt-bert, dle-tf-bert, dle-tf2-bert, fairseq)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := study.ReadValidation(writeValidation(t, tc.body))
			if !errors.Is(err, study.ErrValidationFile) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestValidate: simulated figures, errors and their median and worst on a
// small file; tokens/s rows scale samples/s.
func TestValidate(t *testing.T) {
	t.Parallel()
	body := validationHeader +
		"a\tzoo:mlp?training=true&batch=64\t1xV100\t1\tfp32\tpytorch\t1000\tsamples/s\t1\tsrc\t\n" +
		"b\tzoo:mlp?training=true&batch=64\t1xV100\t1\tamp-fp16\tpytorch\t1000\ttokens/s\t10\tsrc\t\n" +
		"c\tzoo:mlp?training=true&batch=64\t4xV100-pcie\t2\tfp32\ttensorflow\t1000\tsamples/s\t1\tsrc\t\n"
	s := validateText(t, body)
	if len(s.Rows) != 3 {
		t.Fatalf("%d rows", len(s.Rows))
	}
	const tol = 1e-12
	var abs []float64
	for _, r := range s.Rows {
		if r.Failure != "" || !(r.Simulated > 0) {
			t.Fatalf("row %s: %+v", r.ID, r)
		}
		if !scalar.EqualWithinAbsOrRel(r.Error, r.Simulated/r.Measured-1, tol, tol) {
			t.Fatalf("row %s: error %g", r.ID, r.Error)
		}
		abs = append(abs, math.Abs(r.Error))
	}
	if !strings.Contains(s.Rows[1].Workload, "precision=amp-fp16") || !strings.Contains(s.Rows[2].Workload, "framework=tensorflow") {
		t.Fatalf("workloads %q, %q", s.Rows[1].Workload, s.Rows[2].Workload)
	}
	lo, hi := math.Min(abs[0], math.Min(abs[1], abs[2])), math.Max(abs[0], math.Max(abs[1], abs[2]))
	median := abs[0] + abs[1] + abs[2] - lo - hi
	if !scalar.EqualWithinAbsOrRel(s.MedianError, median, tol, tol) || !scalar.EqualWithinAbsOrRel(s.WorstError, hi, tol, tol) {
		t.Fatalf("median %g worst %g, want %g and %g", s.MedianError, s.WorstError, median, hi)
	}
}
