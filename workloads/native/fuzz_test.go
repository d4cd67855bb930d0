package native_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"placesim/workloads/native"
)

var update = flag.Bool("update", false, "rewrite the seed corpus under testdata/fuzz")

// fuzzSeeds are the seed corpus of FuzzNative: valid files (named
// valid-*) and each kind of bad input (bad-*).
func fuzzSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	for _, name := range []string{"diamond", "chain", "forkjoin", "mlp-training", "every-field"} {
		data, err := native.Marshal(roundTripGraphs(t)[name])
		if err != nil {
			t.Fatal(err)
		}
		seeds["valid-"+name] = data
	}
	seeds["bad-truncated"] = seeds["valid-diamond"][:len(seeds["valid-diamond"])/2]
	seeds["bad-wrong-type"] = []byte(doc(`{"name": "a", "flops": "x"}`, ""))
	seeds["bad-missing-node"] = []byte(doc(fourOps, `{"from": "a", "to": "z"}`))
	seeds["bad-negative-size"] = []byte(doc(`{"name": "a", "outputBytes": -5}`, ""))
	seeds["bad-cycle"] = []byte(doc(fourOps, fourEdges+`, {"from": "d", "to": "a"}`))
	return seeds
}

const corpusDir = "testdata/fuzz/FuzzNative"

// TestFuzzCorpus checks the seed corpus: valid-* seeds parse, bad-* seeds
// are refused. With -update it rewrites the corpus from fuzzSeeds.
func TestFuzzCorpus(t *testing.T) {
	if *update {
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for n, data := range fuzzSeeds(t) {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
			if err := os.WriteFile(filepath.Join(corpusDir, n), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := os.ReadDir(corpusDir)
	if err != nil || len(files) < len(fuzzSeeds(t)) {
		t.Fatalf("seed corpus %s: %d files, %v (run go test -run TestFuzzCorpus -update)", corpusDir, len(files), err)
	}
	for _, f := range files {
		t.Run(f.Name(), func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(corpusDir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			lit, ok := strings.CutPrefix(string(body), "go test fuzz v1\n[]byte(")
			lit, ok2 := strings.CutSuffix(lit, ")\n")
			data, err := strconv.Unquote(lit)
			if !ok || !ok2 || err != nil {
				t.Fatalf("not a corpus file of one []byte: %v", err)
			}
			_, perr := native.Parse([]byte(data), f.Name())
			switch {
			case strings.HasPrefix(f.Name(), "valid-") && perr != nil:
				t.Fatalf("valid seed refused: %v", perr)
			case strings.HasPrefix(f.Name(), "bad-") && perr == nil:
				t.Fatal("bad seed accepted")
			}
		})
	}
}

// FuzzNative checks that Parse never panics, that every error names the
// file and wraps ErrFormat, and that whatever parses round-trips exactly.
func FuzzNative(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := native.Parse(data, "fuzz.json")
		if err != nil {
			if msg := err.Error(); json.Valid(data) && (strings.Contains(msg, "JSON syntax") || strings.Contains(msg, "end of file")) {
				t.Fatalf("syntax error on what encoding/json reads as valid: %v", err)
			}
			if !errors.Is(err, native.ErrFormat) || !strings.HasPrefix(err.Error(), `workload "fuzz.json": `) {
				t.Fatalf("error without ErrFormat or file name: %v", err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Parse returned an invalid graph: %v", err)
		}
		// the reader agrees with encoding/json on validity and
		// on how strings decode
		var ref struct {
			Name string
			Ops  []struct{ Name, Type string }
		}
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatalf("Parse accepted what encoding/json refuses: %v", err)
		}
		if ref.Name != g.Name || len(ref.Ops) != len(g.Ops) {
			t.Fatalf("name %q, %d ops; encoding/json reads %q, %d", g.Name, len(g.Ops), ref.Name, len(ref.Ops))
		}
		for i, o := range ref.Ops {
			if o.Name != g.Ops[i].Name || o.Type != g.Ops[i].Type {
				t.Fatalf("ops[%d] %q/%q; encoding/json reads %q/%q", i, g.Ops[i].Name, g.Ops[i].Type, o.Name, o.Type)
			}
		}
		out, err := native.Marshal(g)
		if err != nil {
			t.Fatalf("cannot write a parsed graph: %v", err)
		}
		g2, err := native.Parse(out, "again.json")
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, out)
		}
		if d := cmp.Diff(g, g2, graphCmp); d != "" {
			t.Fatalf("round trip differs (-first +second):\n%s", d)
		}
		if out2, _ := native.Marshal(g2); !bytes.Equal(out, out2) {
			t.Fatal("writing twice gave different bytes")
		}
	})
}
