package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/engine"
	"placesim/internal/units"
	"placesim/placers"
	"placesim/study"
)

// runFlags are the flags shared by commands that place and simulate.
type runFlags struct {
	workload, cluster string
	seed              uint64
	opts              []string
	estimates         string
	sigma             float64
	reproducible      bool
	maxMemory         string
}

func (f *runFlags) register(cmd *cobra.Command, defCluster string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.workload, "workload", "w", "", "workload: zoo:NAME[?params] or a workload file (required)")
	fl.StringVarP(&f.cluster, "cluster", "c", defCluster, "cluster preset name or cluster file (YAML/JSON); empty: the machine the workload file describes")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for every random choice (placers, estimate noise)")
	fl.StringArrayVar(&f.opts, "opt", nil, "placer option key=value, or PLACER.key=value for one placer (repeatable), e.g. --opt m-etf.coarsen=true; placesim describe placer NAME lists them")
	fl.StringVar(&f.estimates, "estimates", "exact", "costs placers see: exact, noise (seeded profiling error), or standard-eval (Celeritas: small-batch profiling under noise + linear regression; zoo workloads)")
	fl.Float64Var(&f.sigma, "noise-sigma", 0.1, "relative standard deviation of the estimate noise (with --estimates noise; of one measured op time with standard-eval)")
	fl.BoolVar(&f.reproducible, "reproducible", false, "leave wall-clock measurements (placeTime) out, so equal inputs give byte-identical output")
	registerMaxMemory(cmd, &f.maxMemory)
	_ = cmd.MarkFlagRequired("workload")
}

// registerMaxMemory adds --max-memory, the engine's limit on the memory
// one simulation may take for itself.
func registerMaxMemory(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "max-memory", "0", fmt.Sprintf("memory one simulation may take for itself, e.g. 8GiB; a plan whose unrolled step needs more is refused before anything is allocated (0: %s)", units.Bytes(engine.DefaultMaxMemory)))
}

// parseMaxMemory reads a --max-memory flag: a size >= 0, where 0 stands
// for the command's default def (engine.DefaultMaxMemory for a
// simulation, study.DefaultMergeMemory for merge), which only the error
// names: the caller's consumer applies it.
func parseMaxMemory(v string, def int64) (int64, error) {
	b, err := units.ParseBytes(v)
	if err != nil || b < 0 {
		return 0, fmt.Errorf("--max-memory %q: want a size >= 0 such as 2GiB (0: the default, %s)", v, units.Bytes(def))
	}
	return b, nil
}

// request returns the inputs and the base spec the flags describe.
func (f *runFlags) request() (study.Inputs, study.Spec, error) {
	in := study.Inputs{Workload: f.workload, Cluster: f.cluster}
	opts, err := parseOpts(f.opts)
	if err != nil {
		return in, study.Spec{}, err
	}
	maxMem, err := parseMaxMemory(f.maxMemory, engine.DefaultMaxMemory)
	if err != nil {
		return in, study.Spec{}, err
	}
	spec := study.Spec{Options: opts, Seed: f.seed, Reproducible: f.reproducible, MaxMemory: maxMem,
		Estimates: devices.EstimateOptions{Mode: devices.EstimateMode(f.estimates), Sigma: f.sigma, Seed: f.seed}}
	return in, spec, nil
}

func parseOpts(kvs []string) (placers.Options, error) {
	o := placers.Options{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--opt %q: want key=value", kv)
		}
		// the last of two values would win silently (issue 31)
		if prev, dup := o[k]; dup {
			return nil, fmt.Errorf("--opt %s given twice (%s=%s and %s; valid: each key once)", k, k, prev, kv)
		}
		o[k] = v
	}
	return o, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// splitPlacers reads a --placers list: comma-separated names, none empty.
func splitPlacers(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("--placers is empty (valid: comma-separated placer names, see placesim list placers; leave the flag out for the default)")
	}
	var names []string
	for i, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "" {
			return nil, fmt.Errorf("--placers %q: name %d is empty (valid: comma-separated placer names)", v, i+1)
		}
		names = append(names, n)
	}
	return names, nil
}
