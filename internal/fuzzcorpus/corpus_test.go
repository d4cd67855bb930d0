package fuzzcorpus_test

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"placesim/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the corpus sizes in the README's table of fuzz targets")

// fuzzFunc matches a fuzz target's declaration.
var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)

// target is one fuzz target: its package directory (relative to the
// repository root) and its name.
type target struct{ dir, name string }

// targets lists every fuzz target under root, sorted by package and name.
func targets(t *testing.T, root string) []target {
	t.Helper()
	var out []target
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			out = append(out, target{filepath.ToSlash(rel), string(m[1])})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].dir != out[j].dir {
			return out[i].dir < out[j].dir
		}
		return out[i].name < out[j].name
	})
	return out
}

// corpusSize counts the committed corpus entries of a target: files in
// testdata/fuzz/NAME that start with Go's corpus header.
func corpusSize(t *testing.T, root string, tg target) int {
	t.Helper()
	dir := filepath.Join(root, tg.dir, "testdata", "fuzz", tg.name)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "go test fuzz v1\n") {
			t.Errorf("%s/%s: not a Go fuzz corpus file (no \"go test fuzz v1\" header)", dir, e.Name())
			continue
		}
		n++
	}
	return n
}

// rowPrefix is how the README's table row of a target begins, up to and
// including its corpus-size cell.
func rowPrefix(tg target, n int) string {
	return fmt.Sprintf("| `%s` | `%s` | %d |", tg.name, tg.dir, n)
}

// TestEveryFuzzTargetHasACorpus: each fuzz target has a non-empty
// committed corpus (go test replays it, so CI runs every found input), and
// the README's table of fuzz targets has a row for each with its corpus
// size (go test ./internal/fuzzcorpus -update rewrites the sizes).
func TestEveryFuzzTargetHasACorpus(t *testing.T) {
	root := sharedtest.Root(t)
	tgs := targets(t, root)
	if len(tgs) < 8 {
		t.Fatalf("found %d fuzz targets, want at least the 8 file formats' (%v)", len(tgs), tgs)
	}
	readme := filepath.Join(root, "README.md")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	rowOf := map[string]int{} // "| `FuzzX` | `pkg` |" -> line index
	for i, l := range lines {
		// the table may be indented (inside a list item)
		if l = strings.TrimLeft(l, " "); strings.HasPrefix(l, "| `Fuzz") {
			cells := strings.SplitN(l, "|", 4)
			if len(cells) == 4 {
				rowOf["|"+cells[1]+"|"+cells[2]+"|"] = i
			}
		}
	}
	changed := false
	for _, tg := range tgs {
		n := corpusSize(t, root, tg)
		if n == 0 {
			t.Errorf("%s in %s: no committed corpus in testdata/fuzz/%s (run it with -fuzz and commit the inputs)", tg.name, tg.dir, tg.name)
		}
		key := fmt.Sprintf("| `%s` | `%s` |", tg.name, tg.dir)
		i, ok := rowOf[key]
		if !ok {
			t.Errorf("README.md: no row %q in the table of fuzz targets", key)
			continue
		}
		row := strings.TrimLeft(lines[i], " ")
		indent := lines[i][:len(lines[i])-len(row)]
		want := rowPrefix(tg, n)
		if strings.HasPrefix(row, want) {
			continue
		}
		if *update {
			cells := strings.SplitN(row, "|", 5)
			lines[i] = indent + want + cells[4]
			changed = true
			continue
		}
		t.Errorf("README.md line %d: %q, want it to begin %q (go test ./internal/fuzzcorpus -update)", i+1, row, want)
	}
	if changed {
		if err := os.WriteFile(readme, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCorpusCounts checks the discovery and counting on a made-up tree:
// a sub-directory of the corpus is not an entry.
func TestCorpusCounts(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p", "testdata", "fuzz", "FuzzA")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, body := range []string{"go test fuzz v1\n[]byte(\"a\")\n", "go test fuzz v1\n[]byte(\"b\")\n"} {
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "p", "a_test.go"), []byte("package p\n\nfunc FuzzA(f *testing.F) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tgs := targets(t, root)
	if len(tgs) != 1 || tgs[0] != (target{"p", "FuzzA"}) {
		t.Fatalf("targets %v, want [{p FuzzA}]", tgs)
	}
	if n := corpusSize(t, root, tgs[0]); n != 2 {
		t.Fatalf("corpus size %d, want 2", n)
	}
	if got := rowPrefix(tgs[0], 2); got != "| `FuzzA` | `p` | 2 |" {
		t.Fatalf("row %q", got)
	}
}
