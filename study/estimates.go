package study

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"placesim/devices"
	"placesim/workloads"
	"placesim/workloads/zoo"
)

// NewEstimates makes the estimates a run's placer sees: devices.NewEstimates
// for the exact and noise modes, and Celeritas' Standard Evaluation
// (devices.StandardEvaluation) for devices.StandardEval, which rebuilds a
// zoo workload at small batch sizes (ZooBuilder) and measures with o.Sigma
// as the relative noise of one op time (0: the default 0.1) and o.Seed.
// Standard Evaluation needs a zoo workload: a file has no batch parameter
// to change.
func NewEstimates(g *workloads.Graph, c *devices.Cluster, o devices.EstimateOptions) (*devices.Estimates, error) {
	if o.Mode != devices.StandardEval {
		return devices.NewEstimates(g, c, o)
	}
	build, err := ZooBuilder(g.Name)
	if err != nil {
		return nil, err
	}
	est, _, err := devices.StandardEvaluation(g, c, build, devices.StandardEvalOptions{TimeSigma: o.Sigma, Seed: o.Seed})
	return est, err
}

// CheckEstimates checks the estimate options NewEstimates would refuse,
// without building any estimate: the mode, the noise sigma, and for
// Standard Evaluation a zoo workload it can rebuild.
func CheckEstimates(g *workloads.Graph, o devices.EstimateOptions) error {
	switch o.Mode {
	case "", devices.Exact:
		return nil
	case devices.Noisy:
		if !(o.Sigma >= 0 && o.Sigma <= 1) {
			return fmt.Errorf("estimate noise sigma %g (valid range: [0, 1])", o.Sigma)
		}
		return nil
	case devices.StandardEval:
		// devices.StandardEvaluation's range for one op time's noise
		if !(o.Sigma >= 0 && o.Sigma <= 1) {
			return fmt.Errorf("standard evaluation: time sigma %g (valid range: [0, 1])", o.Sigma)
		}
		_, err := ZooBuilder(g.Name)
		return err
	}
	return fmt.Errorf("estimate mode %q (valid: exact, noise, standard-eval)", o.Mode)
}

// ZooBuilder returns a function that rebuilds the zoo workload named spec
// ("zoo:NAME?params", as zoo graphs are named) at another batch size, every
// other parameter kept.
func ZooBuilder(spec string) (func(batch int) (*workloads.Graph, error), error) {
	rest, ok := strings.CutPrefix(spec, "zoo:")
	if !ok {
		return nil, fmt.Errorf("estimates %s: workload %q is not a zoo model (zoo:NAME?params), so it cannot be rebuilt at small batch sizes", devices.StandardEval, spec)
	}
	name, query, _ := strings.Cut(rest, "?")
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("estimates %s: workload %q: %w", devices.StandardEval, spec, err)
	}
	return func(batch int) (*workloads.Graph, error) {
		v := url.Values{}
		for k, x := range vals {
			v[k] = x
		}
		v.Set("batch", strconv.Itoa(batch))
		return zoo.Build("zoo:" + name + "?" + v.Encode())
	}, nil
}
