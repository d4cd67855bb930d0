package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// nonFinite matches a printed non-finite number: a value position (after
// a colon, a space-separated table cell) holding Inf or NaN.
var nonFinite = regexp.MustCompile(`(:|\s{2})\s*[+-]?(Inf|NaN)\b`)

// TestEveryFailureFails: run and sweep exit non-zero when a point fails,
// saying how many and why; --allow-failures opts out; a non-finite step
// time is an error, never a printed number; a subnormal efficiency is
// refused with the file and field before any work.
func TestEveryFailureFails(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.yaml")
	os.WriteFile(slow, []byte(`name: slow
kinds: [{name: SLOW, base: V100-16GB, flops: "1e-300"}]
devices: [{name: g0, kind: SLOW}, {name: g1, kind: SLOW}]
links: [{between: [g0, g1], kind: nvlink2}]
`), 0o644)
	subnormal := filepath.Join(dir, "subnormal.yaml")
	os.WriteFile(subnormal, []byte(`name: sub
kinds: [{name: SUB, base: V100-16GB, computeEfficiency: "1e-320"}]
devices: [{name: g0, kind: SUB}, {name: g1, kind: SUB}]
links: [{between: [g0, g1], kind: nvlink2}]
`), 0o644)
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("name: s\nworkloads: [\"zoo:mlp?batch=32\"]\nclusters: [4xV100-pcie, "+filepath.Join(dir, "none.yaml")+"]\nplacers: [single]\n"), 0o644)
	// 2,000 seeds x 10,000 steps x every placer: hundreds of millions of
	// points, which used to be listed (and run out of memory) before any ran
	var seeds []string
	for i := 1; i <= 2000; i++ {
		seeds = append(seeds, strconv.Itoa(i))
	}
	huge := filepath.Join(dir, "huge.yaml")
	os.WriteFile(huge, []byte("name: huge\nworkloads: [\"zoo:mlp\"]\nclusters: [4xV100-pcie]\nplacers: [all]\nseeds: ["+strings.Join(seeds, ",")+
		"]\nvary: {param: batch, range: \"1..10000:10000\"}\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"run with a missing cluster", []string{"run", sc, "-q", "--out", filepath.Join(dir, "a")}, 1, []string{"1 of 2 points failed", "none.yaml"}},
		{"run allowed", []string{"run", sc, "-q", "--out", filepath.Join(dir, "b"), "--allow-failures"}, 0, nil},
		{"sweep every point fails", []string{"sweep", "-w", "zoo:mlp?batch=32", "--placers", "single", "--vary", "device.V100-16GB.flops=0.5x,1x",
			"-c", filepath.Join(dir, "none.yaml"), "-q", "--out", filepath.Join(dir, "c")}, 1, []string{"2 of 2 points failed"}},
		{"simulate non-finite", []string{"simulate", "-w", "zoo:mlp?batch=32", "-c", slow, "--json"}, 1, []string{"kinds[0]: flops", "1e-300 FLOP/s (valid range: >= 1 FLOP/s)"}},
		{"scenario of too many points", []string{"run", huge, "-q", "--out", filepath.Join(dir, "h")}, 1,
			[]string{`scenario "huge"`, "more than 1000000 points", "x 2000 seeds"}},
		// a file naming a device used to be read until memory ran out
		{"workload /dev/zero", []string{"simulate", "-w", "/dev/zero", "-p", "single"}, 1, []string{`"/dev/zero"`, "not a regular file (a character device; want a file)"}},
		{"cluster /dev/zero", []string{"simulate", "-w", "zoo:mlp", "-c", "/dev/zero", "-p", "single"}, 1, []string{"/dev/zero: not a regular file"}},
		{"scenario /dev/zero", []string{"run", "/dev/zero", "-q", "--out", filepath.Join(dir, "z")}, 1, []string{"read scenario: /dev/zero: not a regular file"}},
		{"baseline /dev/zero", []string{"check", "--baseline", "/dev/zero"}, 1, []string{"read results: /dev/zero: not a regular file"}},
		{"expert plan /dev/zero", []string{"place", "-w", "zoo:mlp", "-c", "4xV100-pcie", "-p", "expert", "--opt", "file=/dev/zero"}, 1,
			[]string{"read expert file: /dev/zero: not a regular file"}},
		{"subnormal efficiency", []string{"simulate", "-w", "zoo:mlp?batch=32", "-c", subnormal, "--json"}, 1,
			[]string{subnormal, "kinds[0]", "field computeEfficiency = 1e-320 (valid range: [1e-06, 1])"}},
		{"sweep non-finite", []string{"sweep", "-w", "zoo:mlp?batch=32", "--placers", "single", "--vary", "link.nvlink.bandwidth=1x,2x",
			"-c", slow, "-q", "--out", filepath.Join(dir, "d")}, 1, []string{"2 of 2 points failed", "(valid range: >= 1 FLOP/s)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Fatalf("stderr %q lacks %q", errs, w)
				}
			}
			if nonFinite.MatchString(out) {
				t.Fatalf("printed a non-finite number:\n%s", out)
			}
		})
	}
}
