package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"placesim/cmd/placesim/cli"
	"placesim/placers/builtin"
)

// hostileInput is one malformed or hostile invocation: it must exit
// non-zero with a one-line "placesim:" error, never a panic or a Go
// runtime error.
type hostileInput struct {
	cmd  string
	args []string
}

// hostileFiles writes the malformed files the table refers to and returns
// their paths by name.
func hostileFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"empty":         "",
		"spaces":        "   \n\t\n",
		"garbage":       "\x00\x01\x02\xff\xfe binary \x7f",
		"json-trunc":    `{"format": "placesim-workload", "version": 1, "ops": [`,
		"json-array":    `[1, 2, 3]`,
		"json-null":     `null`,
		"yaml-tabs":     "name:\t\tx\n  - : :\n",
		"yaml-bomb":     "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n",
		"w-cyclic":      `{"format": "placesim-workload", "version": 1, "name": "c", "batch": 1, "ops": [{"name": "a", "flops": 1}, {"name": "b", "flops": 1}], "edges": [{"from": "a", "to": "b", "bytes": 1}, {"from": "b", "to": "a", "bytes": 1}]}`,
		"w-negative":    `{"format": "placesim-workload", "version": 1, "name": "n", "batch": 1, "ops": [{"name": "a", "flops": -1}], "edges": []}`,
		"w-overflow":    `{"format": "placesim-workload", "version": 1, "name": "o", "batch": 1, "ops": [{"name": "a", "flops": 1, "outputBytes": 9223372036854775807}, {"name": "b", "flops": 1, "outputBytes": 9223372036854775807}], "edges": [{"from": "a", "to": "b", "bytes": 9223372036854775807}]}`,
		"w-nan":         `{"format": "placesim-workload", "version": 1, "name": "n", "batch": 1, "ops": [{"name": "a", "flops": "NaN"}], "edges": []}`,
		"w-huge-float":  `{"format": "placesim-workload", "version": 1, "name": "h", "batch": 1, "ops": [{"name": "a", "flops": 1e400}], "edges": []}`,
		"w-dup-op":      `{"format": "placesim-workload", "version": 1, "name": "d", "batch": 1, "ops": [{"name": "a", "flops": 1}, {"name": "a", "flops": 1}], "edges": []}`,
		"w-bad-edge":    `{"format": "placesim-workload", "version": 1, "name": "e", "batch": 1, "ops": [{"name": "a", "flops": 1}], "edges": [{"from": "a", "to": "zz", "bytes": 1}]}`,
		"w-self-edge":   `{"format": "placesim-workload", "version": 1, "name": "e", "batch": 1, "ops": [{"name": "a", "flops": 1}], "edges": [{"from": "a", "to": "a", "bytes": 1}]}`,
		"w-batch0":      `{"format": "placesim-workload", "version": 1, "name": "b", "batch": 0, "ops": [{"name": "a", "flops": 1}], "edges": []}`,
		"w-version":     `{"format": "placesim-workload", "version": 99, "name": "v", "batch": 1, "ops": [], "edges": []}`,
		"w-no-ops":      `{"format": "placesim-workload", "version": 1, "name": "v", "batch": 1, "ops": [], "edges": []}`,
		"w-unknown":     `{"format": "placesim-workload", "version": 1, "name": "u", "batch": 1, "exec": "/bin/sh", "ops": [{"name": "a", "flops": 1}], "edges": []}`,
		"c-no-devices":  "name: x\ndevices: []\nlinks: []\n",
		"c-neg-memory":  "name: x\ndevices: [{name: g, kind: V100-16GB, memory: -1GiB}]\nlinks: []\n",
		"c-zero-bw":     "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b], kind: pcie3, bandwidth: 0GB/s}]\n",
		"c-neg-latency": "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b], kind: pcie3, latency: -1us}]\n",
		"c-bad-kind":    "name: x\ndevices: [{name: g, kind: TPUv9}]\nlinks: []\n",
		"c-bad-link":    "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b], kind: warp-drive}]\n",
		"c-dup-device":  "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: a, kind: V100-16GB}]\nlinks: []\n",
		"c-unknown-end": "name: x\ndevices: [{name: a, kind: V100-16GB}]\nlinks: [{between: [a, nowhere], kind: pcie3}]\n",
		"c-self-link":   "name: x\ndevices: [{name: a, kind: V100-16GB}]\nlinks: [{between: [a, a], kind: pcie3}]\n",
		"c-three-ends":  "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b, a], kind: pcie3}]\n",
		"c-width":       "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: [{between: [a, b], kind: pcie3, width: -4}]\n",
		"c-disconn":     "name: x\ndevices: [{name: a, kind: V100-16GB}, {name: b, kind: V100-16GB}]\nlinks: []\n",
		"c-eff-zero":    "name: x\nkinds: [{name: K, base: V100-16GB, computeEfficiency: \"0\"}]\ndevices: [{name: a, kind: K}]\nlinks: []\n",
		"c-eff-nan":     "name: x\nkinds: [{name: K, base: V100-16GB, computeEfficiency: \"NaN\"}]\ndevices: [{name: a, kind: K}]\nlinks: []\n",
		"c-unknown":     "name: x\nbin: /bin/sh\ndevices: [{name: a, kind: V100-16GB}]\nlinks: []\n",
		"c-no-name":     "devices: [{name: a, kind: V100-16GB}]\nlinks: []\n",
		"s-no-name":     "workloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\n",
		"s-no-work":     "name: s\nworkloads: []\nclusters: [4xV100-pcie]\nplacers: [single]\n",
		"s-no-clusters": "name: s\nworkloads: [zoo:mlp]\nclusters: []\nplacers: [single]\n",
		"s-no-placers":  "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: []\n",
		"s-bad-placer":  "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [nope]\n",
		"s-unknown":     "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nexec: rm\n",
		"s-bad-opt":     "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [m-etf]\nplacerOptions: {m-etf: {coarsne: \"true\"}}\n",
		"s-metis-bin":   "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [metis]\nplacerOptions: {metis: {bin: /bin/sh}}\n",
		"s-pesto-dir":   "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [pesto]\nplacerOptions: {pesto: {dir: /tmp/evil}}\n",
		"s-bad-timeout": "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\ntimeout: forever\n",
		"s-neg-timeout": "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\ntimeout: -1m\n",
		"s-bad-est":     "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nestimates: {mode: psychic}\n",
		"s-bad-vary":    "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nvary: {param: batch, range: \"1..1e300:3\"}\n",
		"s-vary-param":  "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nvary: {param: warp.speed, range: \"1,2\"}\n",
		"s-bad-setting": "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nsettings: [[{param: device.all.flops, value: -2x}]]\n",
		"s-seeds-neg":   "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nseeds: [-1]\n",
		"s-baseline":    "name: s\nworkloads: [zoo:mlp]\nclusters: [4xV100-pcie]\nplacers: [single]\nbaseline: round-robin\n",
		"r-empty-recs":  `{"format": "placesim-results", "version": 1, "scenario": {"name": "s", "workloads": ["zoo:mlp"], "clusters": ["4xV100-pcie"], "placers": ["single"]}, "records": []}`,
		"r-no-scenario": `{"format": "placesim-results", "version": 1, "records": []}`,
		"r-version":     `{"format": "placesim-results", "version": 7, "scenario": {"name": "s"}, "records": []}`,
		"r-old":         `{"scenario": {"name": "s", "workloads": ["zoo:mlp"], "clusters": ["4xV100-pcie"], "placers": ["single"]}, "records": [{"index": 0, "placer": "single"}]}`,
		"r-metis-bin":   `{"format": "placesim-results", "version": 1, "scenario": {"name": "s", "workloads": ["zoo:mlp"], "clusters": ["4xV100-pcie"], "placers": ["metis"], "placerOptions": {"metis": {"bin": "/bin/sh"}}}, "records": [{"index": 0, "workload": "zoo:mlp", "cluster": "4xV100-pcie", "placer": "metis", "seed": 1}]}`,
		"r-unmatched":   `{"format": "placesim-results", "version": 1, "scenario": {"name": "s", "workloads": ["zoo:mlp?batch=8"], "clusters": ["4xV100-pcie"], "placers": ["single"]}, "records": [{"index": 0, "workload": "zoo:mlp?batch=8", "cluster": "4xV100-pcie", "placer": "single", "seed": 42}]}`,
		"r-bad-scen":    `{"format": "placesim-results", "version": 1, "scenario": {"name": "", "workloads": []}, "records": [{"index": 0}]}`,
		"expert-neg":    `{"default": -1}`,
		"expert-big":    `{"default": 99999999999}`,
		"expert-junk":   `{"default": "gpu0", "ops": 7}`,
		"stages-bad":    `{"stages": [[-1]]}`,
	}
	out := map[string]string{}
	for name, body := range files {
		ext := ".json"
		if strings.HasPrefix(name, "c-") || strings.HasPrefix(name, "s-") || strings.HasPrefix(name, "yaml") {
			ext = ".yaml"
		}
		p := filepath.Join(dir, name+ext)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	out["missing"] = filepath.Join(dir, "does-not-exist.json")
	out["dir"] = dir
	return out
}

// hostileTable generates the table: each command's hostile flag values
// and files.
func hostileTable(f map[string]string, dir string) []hostileInput {
	var tab []hostileInput
	add := func(cmd string, args ...string) { tab = append(tab, hostileInput{cmd, append([]string{cmd}, args...)}) }
	workloadFiles := []string{"empty", "spaces", "garbage", "json-trunc", "json-array", "json-null", "w-cyclic", "w-negative", "w-overflow",
		"w-nan", "w-huge-float", "w-dup-op", "w-bad-edge", "w-self-edge", "w-batch0", "w-version", "w-no-ops", "w-unknown", "missing", "dir"}
	workloadSpecs := []string{"", "zoo:", "zoo:nope", "zoo:mlp?batch=-1", "zoo:mlp?batch=0", "zoo:mlp?batch=1e300", "zoo:mlp?batch=NaN",
		"zoo:mlp?training=maybe", "zoo:mlp?granularity=atom", "zoo:mlp?depth=3", "zoo:mlp?batch=99999999999999999999", "zoo:mlp?%zz", "zoo:bert?layers=-1",
		"zoo:bert?layers=100000000", "zoo:transformer?hidden=0", "zoo:mlp?batch=1&batch=2"}
	clusterFiles := []string{"empty", "spaces", "garbage", "yaml-tabs", "yaml-bomb", "c-no-devices", "c-neg-memory", "c-zero-bw", "c-neg-latency",
		"c-bad-kind", "c-bad-link", "c-dup-device", "c-unknown-end", "c-self-link", "c-three-ends", "c-width", "c-disconn", "c-eff-zero",
		"c-eff-nan", "c-unknown", "c-no-name", "missing", "dir"}
	clusterSpecs := []string{"3xTPU", "0xV100-pcie", "4xV100-pcie/../x", " "}
	for _, cmd := range []string{"simulate", "compare", "place"} {
		place := []string{"-p", "round-robin"}
		if cmd == "compare" {
			place = []string{"--placers", "single,round-robin"}
		}
		for _, w := range workloadFiles {
			add(cmd, append([]string{"-w", f[w], "-c", "4xV100-pcie"}, place...)...)
		}
		for _, w := range workloadSpecs {
			add(cmd, append([]string{"-w", w, "-c", "4xV100-pcie"}, place...)...)
		}
		for _, c := range clusterFiles {
			add(cmd, append([]string{"-w", "zoo:mlp?batch=8", "-c", f[c]}, place...)...)
		}
		for _, c := range clusterSpecs {
			add(cmd, append([]string{"-w", "zoo:mlp?batch=8", "-c", c}, place...)...)
		}
		base := append([]string{"-w", "zoo:mlp?batch=8", "-c", "4xV100-pcie"}, place...)
		for _, extra := range [][]string{
			{"--seed", "-1"}, {"--seed", "abc"}, {"--seed", "1e99"}, {"--estimates", "psychic"}, {"--noise-sigma", "NaN", "--estimates", "noise"},
			{"--noise-sigma", "-1", "--estimates", "noise"}, {"--noise-sigma", "Inf", "--estimates", "noise"},
			{"--max-memory", "-1"}, {"--max-memory", "abc"}, {"--max-memory", "1e400"}, {"--max-memory", "1KiB", "--pipeline", "1f1b", "--microbatches", "8"},
			{"--opt", "="}, {"--opt", "novalue"}, {"--opt", "coarsne=true"}, {"--opt", "metis.bin=/bin/sh"},
			{"--no-such-flag"}, {"positional"},
		} {
			if cmd == "place" && (extra[0] == "--max-memory" && len(extra) > 2) {
				continue // place has no pipeline flags
			}
			add(cmd, append(append([]string{}, base...), extra...)...)
		}
		if cmd != "place" {
			for _, extra := range [][]string{
				{"--pipeline", "warp"}, {"--pipeline", "1f1b", "--microbatches", "0"}, {"--pipeline", "1f1b", "--microbatches", "-1"},
				{"--pipeline", "1f1b", "--microbatches", "1000000000"}, {"--pipeline", "1f1b", "--microbatches", "9"},
				{"--microbatches", "4"}, {"--data-parallel", "0"}, {"--data-parallel", "-1"}, {"--data-parallel", "1000000000"},
				{"--data-parallel", "2", "--allreduce-bucket", "-1"}, {"--data-parallel", "2", "--allreduce-bucket", "lots"},
				{"--allreduce-overlap"}, {"--stages", f["stages-bad"], "--pipeline", "gpipe"}, {"--stages", f["missing"], "--pipeline", "gpipe"},
			} {
				add(cmd, append(append([]string{}, base...), extra...)...)
			}
		}
	}
	for _, p := range []string{"", "nope", "../../bin/sh", "single,single"} {
		add("simulate", "-w", "zoo:mlp?batch=8", "-p", p)
		add("compare", "-w", "zoo:mlp?batch=8", "--placers", p)
		add("place", "-w", "zoo:mlp?batch=8", "-c", "4xV100-pcie", "-p", p)
	}
	for _, e := range []string{"expert-neg", "expert-big", "expert-junk", "garbage", "missing", "empty"} {
		add("simulate", "-w", "zoo:mlp?batch=8", "-p", "expert", "--opt", "file="+f[e])
	}
	for _, extra := range [][]string{{"--format", "xml"}, {"--timeout", "-1s"}, {"--timeout", "forever"}, {"--jobs", "-1"}, {"--placers", ","},
		{"--placers", "single,,round-robin"}, {"--gantt", "nope"}, {"--regimes", "warp:9"}, {"--regimes", ""}, {"--regimes", "1f1b:0"},
		{"--out", f["garbage"]}, {"--out", filepath.Join(f["garbage"], "sub")}} {
		add("compare", append([]string{"-w", "zoo:mlp?batch=8", "--placers", "single"}, extra...)...)
	}
	scen := []string{"empty", "spaces", "garbage", "yaml-tabs", "yaml-bomb", "json-array", "json-null", "s-no-name", "s-no-work", "s-no-clusters",
		"s-no-placers", "s-bad-placer", "s-unknown", "s-bad-opt", "s-metis-bin", "s-pesto-dir", "s-bad-timeout", "s-neg-timeout", "s-bad-est",
		"s-bad-vary", "s-vary-param", "s-bad-setting", "s-seeds-neg", "s-baseline", "missing", "dir"}
	for _, s := range scen {
		add("run", f[s], "-q", "--out", filepath.Join(dir, "run-out"))
	}
	okScen := filepath.Join(dir, "ok.yaml")
	_ = os.WriteFile(okScen, []byte("name: ok\nworkloads: [\"zoo:mlp?batch=8\"]\nclusters: [4xV100-pcie]\nplacers: [single]\n"), 0o644)
	for _, extra := range [][]string{{"--shard", "3/2"}, {"--shard", "a/b"}, {"--shard", "-1/2"}, {"--shard", "0/0"}, {"--workers", "-1"},
		{"--opt", "novalue"}, {"--opt", "nope.x=1"}, {"--max-memory", "-5"}, {"--out", f["garbage"]}, {"--shards", "2"}} {
		add("run", append([]string{okScen, "-q", "--out", filepath.Join(dir, "run-ok")}, extra...)...)
	}
	add("run")
	add("run", okScen, okScen)
	for _, v := range []string{"", "x", "batch=", "=1,2", "batch=0..10:3", "batch=1..1e300:3", "batch=1..10:1", "batch=1..10:100000", "batch=1..NaN:3",
		"batch=-5,1", "batch=1.5", "link.nvlink.bandwidth=abc", "link.nvlink.bandwidth=0x,1x", "device.V100-32GB.flops=-1x,1x",
		"device.V100-32GB.flops=Infx", "foo=1,2", "link.nvlink=1x", "batch=1,,2", "link.nvlink.bandwidth=1x..10:3"} {
		add("sweep", "-w", "zoo:mlp?batch=8", "--placers", "single", "--vary", v, "-q", "--out", filepath.Join(dir, "sweep-out"))
	}
	for _, extra := range [][]string{{"--placers", ""}, {"--placers", "nope"}, {"--seeds", "-1"}, {"--seeds", "x"}, {"--timeout", "forever"},
		{"--timeout", "-1s"}, {"--baseline", "nope"}, {"-c", f["c-disconn"]}, {"-w", f["w-cyclic"]}, {"--workers", "-3"}} {
		add("sweep", append([]string{"-w", "zoo:mlp?batch=8", "--placers", "single", "--vary", "batch=2,4", "-q", "--out", filepath.Join(dir, "sweep-out")}, extra...)...)
	}
	for _, b := range []string{"empty", "spaces", "garbage", "json-trunc", "json-array", "json-null", "r-empty-recs", "r-no-scenario", "r-version", "r-old",
		"r-metis-bin", "r-unmatched", "r-bad-scen", "missing", "dir"} {
		add("check", "--baseline", f[b])
	}
	for _, tol := range []string{"NaN", "NaN%", "-1%", "-0.5", "Inf", "+Inf%", "-Inf", "1e400", "2%%", "", "abc", "5000%", "0x10"} {
		add("check", "--baseline", f["r-unmatched"], "--tolerance", tol)
	}
	add("check")
	for _, m := range []string{"empty", "garbage", "r-version", "r-old", "r-metis-bin", "missing", "dir"} {
		add("merge", "--out", filepath.Join(dir, "merge-out"), f[m])
	}
	add("merge")
	for _, w := range append(workloadFiles[:10], "zoo:nope", "zoo:mlp?batch=-1") {
		if p, ok := f[w]; ok {
			w = p
		}
		add("export", w)
		add("stats", w)
	}
	add("export", "zoo:mlp", "--format", "onnx")
	add("export", "zoo:mlp", "--out", filepath.Join(f["garbage"], "x.json"))
	add("stats", "zoo:mlp", "-c", f["c-disconn"])
	add("stats", "zoo:mlp", "-c", "3xTPU")
	add("stats")
	add("list", "gpus")
	add("list")
	add("list", "clusters", "--options")
	add("describe", "placer", "nope")
	add("describe", "gpu", "x")
	add("models", "extra")
	add("nonsense")
	return tab
}

// TestHostileInputs runs every hostile input in process: each must fail
// with a one-line error naming what is wrong, within seconds, and never
// panic.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	files := hostileFiles(t, dir)
	tab := hostileTable(files, dir)
	if len(tab) < 200 {
		t.Fatalf("only %d hostile inputs, want >= 200", len(tab))
	}
	perCmd := map[string]int{}
	for i, tc := range tab {
		perCmd[tc.cmd]++
		t.Run(fmt.Sprintf("%03d-%s", i, tc.cmd), func(t *testing.T) {
			var out, errb bytes.Buffer
			f := &cli.Factory{Out: &out, ErrOut: &errb, Registry: builtin.NewRegistry, Getenv: func(string) string { return "" }}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			code := cli.MainContext(ctx, f, tc.args)
			msg := errb.String()
			switch {
			case strings.Contains(msg, "internal error") || strings.Contains(msg, "goroutine ") || strings.Contains(msg, "runtime error"):
				t.Fatalf("placesim %q panicked:\n%s", tc.args, msg)
			case code == cli.ExitOK:
				t.Fatalf("placesim %q exited 0; stdout %.300s", tc.args, out.String())
			case code == cli.ExitInterrupted:
				t.Fatalf("placesim %q ran past 60 s", tc.args)
			case !strings.Contains(msg, "placesim:") && !strings.Contains(msg, "Error:"):
				t.Fatalf("placesim %q: exit %d without an error message: %q", tc.args, code, msg)
			}
		})
	}
	t.Logf("hostile inputs per command: %v (total %d)", perCmd, len(tab))
}
