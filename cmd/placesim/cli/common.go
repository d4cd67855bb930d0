package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"placesim/devices"
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
	_ = cmd.MarkFlagRequired("workload")
}

// request returns the inputs and the base spec the flags describe.
func (f *runFlags) request() (study.Inputs, study.Spec, error) {
	in := study.Inputs{Workload: f.workload, Cluster: f.cluster}
	opts, err := parseOpts(f.opts)
	if err != nil {
		return in, study.Spec{}, err
	}
	spec := study.Spec{Options: opts, Seed: f.seed, Reproducible: f.reproducible,
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
		o[k] = v
	}
	return o, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
