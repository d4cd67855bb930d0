package study_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"placesim/internal/sharedtest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"placesim/study"
	"placesim/workloads"
	"placesim/workloads/native"
)

// repoRoot is the directory of go.mod above this test file.
func repoRoot(t *testing.T) string {
	t.Helper()
	return sharedtest.Root(t)
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadWorkloadFormats(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	train, err := workloads.DeriveTraining(workloads.MLP(8, []int{16, 32, 4}))
	if err != nil {
		t.Fatal(err)
	}
	nat, err := native.Marshal(train)
	if err != nil {
		t.Fatal(err)
	}
	cnn, err := os.ReadFile(filepath.Join(root, "workloads", "onnx", "testdata", "tiny_cnn.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	fiddleFile := filepath.Join(root, "..", "shared", "workloads", "msr-fiddle", "OperatorGraphs", "bert_l-3_inference.json")
	if _, err := os.Stat(fiddleFile); err != nil {
		t.Skipf("shared workloads not found: %v", err)
	}
	tests := []struct {
		name     string
		spec     func(t *testing.T) string
		ops      int
		batch    int
		training bool
		hint     bool
	}{
		{"native .json", func(t *testing.T) string { return writeFile(t, "mlp.json", nat) }, len(train.Ops), 8, true, false},
		{"native, any extension", func(t *testing.T) string { return writeFile(t, "mlp.workload", nat) }, len(train.Ops), 8, true, false},
		{"msr-fiddle", func(*testing.T) string { return fiddleFile }, -1, 0, false, true},
		{"onnx with options", func(t *testing.T) string { return writeFile(t, "cnn.onnx", cnn) + "?batch=4" }, 11, 4, false, false},
		{"onnx training", func(t *testing.T) string { return writeFile(t, "cnn.ONNX", cnn) + "?batch=2&training=true" }, -1, 2, true, false},
		{"onnx sniffed without extension", func(t *testing.T) string { return writeFile(t, "cnn.model", cnn) + "?batch=1" }, 11, 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := study.LoadWorkload(tc.spec(t))
			if err != nil {
				t.Fatal(err)
			}
			if (tc.ops >= 0 && len(g.Ops) != tc.ops) || (tc.batch > 0 && g.Batch != tc.batch) || g.Training != tc.training || (g.Hint != nil) != tc.hint {
				t.Fatalf("%d ops, batch %d, training %v, hint %v; want %d, %d, %v, %v",
					len(g.Ops), g.Batch, g.Training, g.Hint != nil, tc.ops, tc.batch, tc.training, tc.hint)
			}
		})
	}
	t.Run("native round trip through LoadWorkload", func(t *testing.T) {
		g, err := study.LoadWorkload(writeFile(t, "rt.json", nat))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(train, g, cmpopts.IgnoreUnexported(workloads.Graph{})); d != "" {
			t.Fatalf("differs (-want +got):\n%s", d)
		}
	})
}

func TestLoadWorkloadBadInput(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	nat, err := native.Marshal(workloads.Diamond(1e-3, 64))
	if err != nil {
		t.Fatal(err)
	}
	fiddleData, err := os.ReadFile(filepath.Join(root, "..", "shared", "workloads", "msr-fiddle", "LayerGraphs", "bert24_inference.json"))
	if err != nil {
		t.Skipf("shared workloads not found: %v", err)
	}
	cnn, err := os.ReadFile(filepath.Join(root, "workloads", "onnx", "testdata", "tiny_cnn.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	nativeDoc := func(ops, edges string) []byte {
		return []byte(`{"format": "placesim-workload", "version": 1, "name": "t", "batch": 1,
"ops": [` + ops + `], "edges": [` + edges + `]}`)
	}
	tests := []struct {
		name   string
		file   string
		data   []byte // nil: the file does not exist
		suffix string
		is     error
		wants  []string
	}{
		{"nonexistent path", "nope.json", nil, "", fs.ErrNotExist, []string{"read workload", "nope.json", "no such file"}},
		{"unknown format: text", "notes.txt", []byte("hello\n"), "", study.ErrUnknownFormat,
			[]string{"unknown workload format", "placesim native JSON", "msr-fiddle JSON", "ONNX model"}},
		{"empty file", "empty.json", []byte(" \n"), "", study.ErrUnknownFormat, []string{"the file is empty", "valid: placesim native JSON"}},
		{"unknown format: other JSON", "other.json", []byte(`{"layers": []}`), "", study.ErrUnknownFormat, []string{"valid: placesim native JSON"}},
		{"truncated native", "t.json", nat[:len(nat)/2], "", native.ErrFormat, []string{"unexpected end of file", "truncated"}},
		{"truncated msr-fiddle", "f.json", fiddleData[:len(fiddleData)/2], "", nil, []string{"f.json"}},
		{"truncated onnx", "m.onnx", cnn[:len(cnn)-9], "?batch=1", nil, []string{"m.onnx", "truncated or corrupt file"}},
		{"wrong type in a field", "w.json", nativeDoc(`{"name": "a"}, {"name": "b", "flops": "many"}`, ""), "", native.ErrFormat,
			[]string{`ops[1].flops: want a number, got string "many"`}},
		{"edge to a missing node", "e.json", nativeDoc(`{"name": "a"}`, `{"from": "a", "to": "foo"}`), "", native.ErrFormat,
			[]string{`edges[0].to: no op named "foo"`}},
		{"negative size", "n.json", nativeDoc(`{"name": "a", "outputBytes": -5}`, ""), "", native.ErrFormat,
			[]string{"ops[0].outputBytes: -5 (valid range: >= 0)"}},
		{"options on a JSON file", "q.json", nat, "?batch=2", nil, []string{"apply to ONNX models and msr-fiddle files only"}},
		{"onnx without a symbolic dim", "s.onnx", cnn, "", nil, []string{`dim[0] is symbolic "batch" with no value given`}},
		{"onnx with a bad option", "o.onnx", cnn, "?batch=zero", nil, []string{"batch=\"zero\""}},
		{"msr-fiddle with a bad option", "b.json", fiddleData, "?contract=ops", nil, []string{`contract="ops"`, "valid: layers, none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if tc.data != nil {
				if err := os.WriteFile(path, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := study.LoadWorkload(path + tc.suffix)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, strconv.Quote(path)) && !strings.Contains(msg, path) {
				t.Errorf("error does not name the file %s: %s", path, msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error does not wrap %v: %s", tc.is, msg)
			}
			for _, w := range tc.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\n lacks %q", msg, w)
				}
			}
		})
	}
}
