package study

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"placesim/placers"
)

// ErrUntrusted marks a data file (scenario, results, cluster, workload)
// that names an executable to run or a directory to write: those come only
// from the command line or the environment of the person running placesim.
var ErrUntrusted = errors.New("a data file may not choose a program to run or a place to write")

// Source is where a setting may come from.
type Source string

// The sources of settings, from most to least trusted.
const (
	// Flag: the command line of the person running placesim.
	Flag Source = "flag"
	// Env: that person's environment (PATH, TMPDIR, batch-system indices).
	Env Source = "environment"
	// ScenarioFile: a scenario YAML/JSON, possibly written by someone else.
	ScenarioFile Source = "scenario file"
	// ResultsFile: a results.json (a check baseline), possibly someone
	// else's.
	ResultsFile Source = "results file"
	// ClusterFile: a cluster YAML/JSON.
	ClusterFile Source = "cluster file"
	// WorkloadFile: a native, msr-fiddle or ONNX workload, a stage file or
	// an expert plan.
	WorkloadFile Source = "workload file"
)

// TrustRule says from which sources a kind of setting is taken.
type TrustRule struct {
	Setting string
	Sources []Source
	Note    string
}

// TrustBoundary lists which settings may come from which source. It is
// the contract the README's "Trust boundary" table repeats, a row per
// rule in this order (setting | may come from | how), which
// TestTrustBoundaryREADME holds to it: data files (scenario, results,
// cluster, workload) describe what to simulate; only the command line and
// the environment choose programs to run and places to write.
func TrustBoundary() []TrustRule {
	data := []Source{Flag, ScenarioFile, ResultsFile}
	return []TrustRule{
		{"executables (placer options declared Executable: metis.bin, scotch.bin, tarnawski-ip.solver)", []Source{Flag, Env},
			"--opt PLACER.key=PATH on simulate, compare, place, run, sweep and check; otherwise found on PATH"},
		{"output directories (--out) and files (export --out)", []Source{Flag}, ""},
		{"directories a placer writes (options declared Directory: pesto.dir, tarnawski-ip.keep)", []Source{Flag},
			"--opt PLACER.key=DIR"},
		{"temporary directories", []Source{Env}, "TMPDIR; placesim makes a private one inside it and removes it on every exit, Ctrl-C included"},
		{"shard index", []Source{Flag, Env}, "--shard, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT"},
		{"input files read (workloads, clusters, stage files, options declared File: expert.file)", data, "read and parsed, never run"},
		{"placer options that name nothing local (numbers, choices, durations)", data, ""},
		{"workloads, clusters, settings, seeds, estimates, vary, timeout", data, ""},
		{"regimes and their all-reduce (bucket, overlap, cost model, precision)", data,
			"--regimes/--data-parallel, --allreduce-bucket, --allreduce-overlap, --allreduce-model auto|link|nccl|pytorch-ddp, --allreduce-precision gradients|fp32|fp16|bf16; a scenario's regimes and allreduce: {bucket, overlap, model, precision}"},
		{"devices, links, bandwidths, memory", []Source{ClusterFile, Flag}, "a preset name or a cluster file"},
		{"ops, tensors, sizes, measured times", []Source{WorkloadFile, Flag}, "a zoo spec or a workload file"},
	}
}

// untrustedResource reports whether an option's value may not come from a
// data file: it names a program to run or a directory to write.
func untrustedResource(o placers.Option) bool {
	return o.Resource == placers.Executable || o.Resource == placers.Directory
}

// CheckDataOptions refuses placer options taken from a data file (a
// scenario's or a results file's placerOptions) that name an executable or
// a directory. The error names the field (placerOptions.PLACER.KEY), what
// it names and where such a value must come from instead.
func CheckDataOptions(reg *placers.Registry, opts map[string]map[string]string) error {
	names := make([]string, 0, len(opts))
	for p := range opts {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		e, err := reg.Entry(p)
		if err != nil {
			return fmt.Errorf("placerOptions.%s: %w", p, err)
		}
		keys := make([]string, 0, len(opts[p]))
		for k := range opts[p] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o, ok := e.Option(strings.TrimPrefix(k, p+"."))
			if ok && untrustedResource(o) {
				return fmt.Errorf("%w: placerOptions.%s.%s names %s %q; give it on the command line (--opt %s.%s=...) or leave it to the environment",
					ErrUntrusted, p, k, resourceNoun(o.Resource), opts[p][k], p, o.Name)
			}
		}
	}
	return nil
}

func resourceNoun(r placers.Resource) string {
	if r == placers.Executable {
		return "an executable"
	}
	return "a " + string(r)
}
