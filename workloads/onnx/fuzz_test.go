package onnx_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"placesim/workloads/onnx"
)

var update = flag.Bool("update", false, "rewrite testdata/*.onnx and the seed corpus under testdata/fuzz")

// testdataModels are the ONNX files shipped in testdata/, made by the
// encoder of builder_test.go (go test -run TestTestdata -update).
func testdataModels() map[string][]byte {
	return map[string][]byte{
		"tiny_cnn.onnx":         tinyCNN(),
		"tiny_transformer.onnx": tinyTransformer(),
		// a PyTorch-style export of a 2-layer LSTM language model
		// (sequence 3, batch 3, hidden 16, vocabulary 100)
		"lstm_lm.onnx": lmModel(2, 16, 3, 100, 3, false),
		// NonMaxSuppression and TopK, which the importer does not support
		// (for lenient imports)
		"unsupported_ops.onnx": lenientModel(true),
	}
}

// fuzzSeeds are FuzzONNX's seed corpus: the models with static shapes
// (valid-*) and each kind of bad input (bad-*).
func fuzzSeeds() map[string][]byte {
	cnn := tinyCNNWith(2)
	return map[string][]byte{
		"valid-cnn":             cnn,
		"valid-transformer":     tinyTransformerWith(2, 5),
		"valid-value-info":      newModel("r").input("x", tFloat, 2, 6).input("s", tInt64, 2).node("Reshape", "rs", in("x", "s"), in("y")).valueInfo("y", tFloat, 3, 4).bytes(),
		"valid-lstm-lm":         lmModel(2, 8, 3, 20, 2, false),
		"valid-bilstm-lm":       lmModel(2, 4, 2, 10, 1, true),
		"valid-gru-lens":        newModel("g").input("x", tFloat, 3, 2, 2).weight("W", 1, 12, 2).weight("R", 1, 12, 4).ints("lens", []int64{3, 1}).node("GRU", "g", in("x", "W", "R", "", "lens"), in("y", "y_h"), aInt("linear_before_reset", 1)).bytes(),
		"valid-rnn-batch-first": recCase{kind: "RNN", dir: "reverse", layout: 1, seq: 3, batch: 2, in: 2, hid: 3, initial: true}.model().bytes(),
		// the spec's edge cases of rank (issue 31): numpy.matmul of two
		// vectors is a scalar, of a vector and a batch of matrices a batch
		// of vectors; an elementwise op on a scalar; a graph without nodes
		"valid-matmul-1d":       newModel("v").input("a", tFloat, 4).input("b", tFloat, 4).node("MatMul", "dot", in("a", "b"), in("y")).node("Relu", "r", in("y"), in("z")).bytes(),
		"valid-matmul-1d-batch": newModel("v").input("a", tFloat, 4).weight("w", 2, 4, 3).node("MatMul", "mm", in("a", "w"), in("y")).bytes(),
		"valid-scalar":          newModel("s").input("x", tFloat).input("w", tFloat).node("Mul", "m", in("x", "w"), in("y")).node("Relu", "r", in("y"), in("z")).bytes(),
		"bad-empty-graph":       newModel("e").input("x", tFloat, 2, 3).bytes(),
		"bad-matmul-scalar":     newModel("v").input("a", tFloat).input("b", tFloat, 4).node("MatMul", "mm", in("a", "b"), in("y")).bytes(),
		"bad-truncated":         cnn[:len(cnn)/2],
		"bad-unsupported-op":    mlpModel("NonMaxSuppression").bytes(),
		"bad-undefined-input":   newModel("u").input("x", tFloat, 2).node("Relu", "r", in("nope"), in("y")).bytes(),
		"bad-shape-mismatch":    newModel("m").input("x", tFloat, 2, 5).weight("w", 4, 3).node("MatMul", "mm", in("x", "w"), in("y")).bytes(),
		"bad-symbolic-dim":      tinyCNN(),
		"bad-negative-dim":      newModel("n").input("x", tFloat, 2, -3).node("Relu", "r", in("x"), in("y")).bytes(),
		"bad-dynamic-reshape":   newModel("r").input("x", tFloat, 2, 6).input("s", tInt64, 2).node("Reshape", "rs", in("x", "s"), in("y")).bytes(),
		"bad-conv-zero-strides": newModel("c").input("x", tFloat, 1, 3, 8, 8).weight("w", 4, 3, 3, 3).node("Conv", "conv", in("x", "w"), in("y"), aInts("strides", 0, 1)).bytes(),
	}
}

const corpusDir = "testdata/fuzz/FuzzONNX"

func corpusFile(data []byte) string {
	return "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\nbool(false)\n"
}

// TestTestdata keeps testdata/*.onnx and the seed corpus equal to what the
// encoder makes (-update rewrites them), and checks the seeds: valid-*
// import, bad-* are refused.
func TestTestdata(t *testing.T) {
	files := map[string][]byte{}
	for name, data := range testdataModels() {
		files[filepath.Join("testdata", name)] = data
	}
	for name, data := range fuzzSeeds() {
		files[filepath.Join(corpusDir, name)] = []byte(corpusFile(data))
	}
	for path, want := range files {
		t.Run(path, func(t *testing.T) {
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s is missing or stale (run go test -run TestTestdata -update): %v", path, err)
			}
		})
	}
	for name, data := range fuzzSeeds() {
		t.Run(name, func(t *testing.T) {
			_, err := onnx.Parse(data, name, onnx.Options{})
			if strings.HasPrefix(name, "valid-") != (err == nil) {
				t.Fatalf("seed %s: error %v", name, err)
			}
		})
	}
}

func TestTestdataFilesImport(t *testing.T) {
	dims := map[string]map[string]int64{
		"tiny_cnn.onnx":         {"batch": 3},
		"tiny_transformer.onnx": {"batch": 3, "seq": 7},
	}
	for name, data := range testdataModels() {
		if name == "unsupported_ops.onnx" {
			continue // TestLenientImport
		}
		t.Run(name, func(t *testing.T) {
			opts := onnx.Options{Dims: dims[name]}
			g, err := onnx.ReadFile(filepath.Join("testdata", name), opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := onnx.Parse(data, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Ops) != len(want.Ops) || len(g.Edges) != len(want.Edges) || g.Batch != 3 || g.TotalFLOPs() != want.TotalFLOPs() {
				t.Fatalf("file gives %d ops, %d edges, batch %d; want %d, %d, 3", len(g.Ops), len(g.Edges), g.Batch, len(want.Ops), len(want.Edges))
			}
		})
	}
}

// FuzzONNX checks that Parse never panics, that every error names the
// file and wraps one of the package's sentinels, and that a graph it
// returns is valid.
func FuzzONNX(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, training bool) {
		// the lenient, fused import must hold to the same rules
		if g, err := onnx.Parse(data, "fuzz.onnx", onnx.Options{Lenient: true, RNN: onnx.RNNFused}); err == nil {
			if err := g.Validate(); err != nil {
				t.Fatalf("lenient Parse returned an invalid graph: %v", err)
			}
		} else if !strings.HasPrefix(err.Error(), `onnx model "fuzz.onnx": `) {
			t.Fatalf("lenient: error without the file: %v", err)
		}
		g, err := onnx.Parse(data, "fuzz.onnx", onnx.Options{Training: training})
		if err != nil {
			if !strings.HasPrefix(err.Error(), `onnx model "fuzz.onnx": `) ||
				!(errors.Is(err, onnx.ErrFormat) || errors.Is(err, onnx.ErrInvalid) || errors.Is(err, onnx.ErrUnsupported)) {
				t.Fatalf("unclassified error or one without the file: %v", err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid graph: %v", err)
		}
		if g.Training != training {
			t.Fatalf("training %v, want %v", g.Training, training)
		}
	})
}
