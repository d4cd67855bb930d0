package native_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"placesim/workloads"
	"placesim/workloads/native"
)

// doc is a native file with the given ops and edges (JSON array bodies).
func doc(ops, edges string) string {
	return `{
  "format": "placesim-workload",
  "version": 1,
  "name": "t",
  "batch": 2,
  "ops": [` + ops + `],
  "edges": [` + edges + `]
}
`
}

const fourOps = `
    {"name": "a", "outputBytes": 8},
    {"name": "b", "flops": 1e6},
    {"name": "c"},
    {"name": "d"}`

const fourEdges = `
    {"from": "a", "to": "b", "bytes": 8},
    {"from": "a", "to": "c"},
    {"from": "b", "to": "d"},
    {"from": "c", "to": "d"}`

func TestParseErrors(t *testing.T) {
	valid, err := native.Marshal(workloads.Diamond(1e-3, 4096))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want []string // substrings of the error, besides the file name
	}{
		{"truncated file", string(valid[:len(valid)*2/3]), []string{"unexpected end of file", "truncated"}},
		{"empty file", "", []string{"unexpected end of file"}},
		{"syntax error", doc(`{"name": "a",, }`, ""), []string{"line 6: ops[0]", "JSON syntax error at byte offset"}},
		{"wrong type in a field", doc(`{"name": "a"}, {"name": "b"}, {"name": "c", "flops": "abc"}`, ""),
			[]string{`ops[2].flops: want a number, got string "abc"`}},
		{"wrong type for an object", doc(`{"name": "a", "measured": 5}`, ""), []string{"ops[0].measured: want an object, got number 5"}},
		{"wrong type for batch", strings.Replace(doc(fourOps, ""), `"batch": 2`, `"batch": "2"`, 1), []string{`line 5: batch: want a number, got string "2"`}},
		{"edge to a missing node", doc(fourOps, fourEdges+`, {"from": "d", "to": "foo"}`), []string{`line 15: edges[4].to: no op named "foo"`}},
		{"edge from a missing node", doc(fourOps, `{"from": "x", "to": "a"}`), []string{`edges[0].from: no op named "x"`}},
		{"negative size", doc(fourOps+`, {"name": "e", "outputBytes": -5}`, ""), []string{"ops[4].outputBytes: -5 (valid range: >= 0)"}},
		{"negative edge bytes", doc(fourOps, `{"from": "a", "to": "b", "bytes": -1}`), []string{"edges[0].bytes: -1 (valid range: >= 0)"}},
		{"negative flops", doc(`{"name": "a", "flops": -1.5}`, ""), []string{"ops[0].flops: -1.5 (valid range: finite, >= 0)"}},
		{"infinite flops", doc(`{"name": "a", "flops": 1e999}`, ""), []string{"ops[0].flops: 1e999 (valid range: finite, >= 0)"}},
		{"negative measured time", doc(`{"name": "a", "measured": {"cpu": -1}}`, ""), []string{`ops[0].measured["cpu"]: -1 (valid range: finite, >= 0)`}},
		{"fractional size", doc(`{"name": "a", "paramBytes": 1.5}`, ""), []string{"ops[0].paramBytes: want an integer, got 1.5"}},
		{"size beyond int64", doc(`{"name": "a", "tempBytes": 99999999999999999999}`, ""), []string{"ops[0].tempBytes: 99999999999999999999 is out of the int64 range"}},
		{"unknown top-level field", strings.Replace(doc(fourOps, ""), `"batch": 2`, `"batch": 2, "bach": 3`, 1), []string{"bach: unknown field (valid: format, version"}},
		{"unknown op field", doc(`{"name": "a", "flop": 1}`, ""), []string{"ops[0].flop: unknown field (valid: name, type"}},
		{"unknown edge field", doc(fourOps, `{"from": "a", "to": "b", "size": 1}`), []string{"edges[0].size: unknown field"}},
		{"unknown hint field", strings.Replace(doc(fourOps, ""), `"batch": 2`, `"batch": 2, "hint": {"gpus": 2}`, 1), []string{"hint.gpus: unknown field"}},
		{"field twice", doc(`{"name": "a", "flops": 1, "flops": 2}`, ""), []string{"ops[0].flops: field given twice"}},
		{"missing version", strings.Replace(doc(fourOps, ""), `"version": 1,`, ``, 1), []string{"version: required field is missing"}},
		{"future version", strings.Replace(doc(fourOps, ""), `"version": 1,`, `"version": 2,`, 1), []string{"version: 2 (valid: 1"}},
		{"wrong format", strings.Replace(doc(fourOps, ""), `"placesim-workload"`, `"onnx"`, 1), []string{`format: "onnx" (valid: "placesim-workload")`}},
		{"missing batch", strings.Replace(doc(fourOps, ""), `"batch": 2,`, ``, 1), []string{"batch: required field is missing"}},
		{"zero batch", strings.Replace(doc(fourOps, ""), `"batch": 2,`, `"batch": 0,`, 1), []string{"batch: 0 (valid range: integer in [1, 2147483647])"}},
		{"no ops", doc("", ""), []string{"ops: no ops"}},
		{"op without name", doc(`{"type": "relu"}`, ""), []string{"ops[0].name: required field is missing"}},
		{"empty op name", doc(`{"name": ""}`, ""), []string{"ops[0].name: empty"}},
		{"duplicate op name", doc(`{"name": "a"}, {"name": "a"}`, ""), []string{`ops[1].name: "a" is also the name of ops[0]`}},
		{"edge without to", doc(fourOps, `{"from": "a"}`), []string{"edges[0].to: required field is missing"}},
		{"unknown role", doc(`{"name": "a", "role": "grad"}`, ""), []string{`ops[0].role: "grad" (valid: forward, backward, update)`}},
		{"self-loop", doc(fourOps, `{"from": "a", "to": "a"}`), []string{`edges[0]: self-loop on op "a"`}},
		{"cycle", doc(fourOps, fourEdges+`, {"from": "d", "to": "a"}`), []string{"cycle"}},
		{"trailing data", doc(fourOps, "") + "{}", []string{"unexpected object after the top-level object"}},
		{"top level is an array", "[]", []string{"want an object, got array"}},
		{"null op", doc(`null`, ""), []string{"ops[0]: want an object, got null"}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			g, err := native.ReadFile(path)
			if err == nil {
				t.Fatalf("no error; read %d ops", len(g.Ops))
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "workload "+strconv.Quote(path)+": ") {
				t.Errorf("error does not start with the file name: %s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\n lacks %q", msg, w)
				}
			}
			if !errors.Is(err, native.ErrFormat) {
				t.Errorf("error does not wrap ErrFormat: %v", err)
			}
		})
	}
}

func TestCycleErrorWrapsWorkloadsError(t *testing.T) {
	_, err := native.Parse([]byte(doc(fourOps, fourEdges+`, {"from": "d", "to": "b"}`)), "c.json")
	if !errors.Is(err, workloads.ErrCycle) || !errors.Is(err, native.ErrFormat) {
		t.Fatalf("error %v: want it to wrap workloads.ErrCycle and ErrFormat", err)
	}
	var e *native.Error
	if !errors.As(err, &e) || e.File != "c.json" {
		t.Fatalf("error %v is not a *native.Error for c.json", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := native.ReadFile(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.json") {
		t.Fatalf("error %v: want a not-exist error naming the file", err)
	}
}

func TestWriteRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(g *workloads.Graph)
		want string
	}{
		{"empty name", func(g *workloads.Graph) { g.Ops[1].Name = "" }, "ops[1].name is empty"},
		{"duplicate name", func(g *workloads.Graph) { g.Ops[2].Name = "a" }, `ops[2].name "a" is also ops[0]'s`},
		{"dangling edge", func(g *workloads.Graph) { g.Edges[0].To = 9 }, "edges[0] 0->9: endpoint out of range [0, 4)"},
		{"NaN flops", func(g *workloads.Graph) { g.Ops[3].FLOPs = nan() }, "ops[3].flops = NaN"},
		{"infinite measured", func(g *workloads.Graph) { g.Ops[0].Measured["*"] = inf() }, `ops[0].measured["*"] = +Inf`},
		{"unknown role", func(g *workloads.Graph) { g.Ops[0].Role = 7 }, "ops[0].role = 7"},
		{"invalid UTF-8", func(g *workloads.Graph) { g.Ops[0].Layer = "\xff" }, "ops[0].layer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := workloads.Diamond(1, 1)
			tc.edit(g)
			_, err := native.Marshal(g)
			if !errors.Is(err, native.ErrUnwritable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v: want ErrUnwritable with %q", err, tc.want)
			}
		})
	}
}
