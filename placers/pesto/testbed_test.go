package pesto

import (
	"testing"

	"placesim/devices"
	"placesim/workloads"
)

// testbed is the Pesto testbed of the paper's section 5 (two V100 with
// NVLink and a host CPU, the 2xV100-nvlink+cpu preset) and g's estimates
// on it, for the package's internal tests.
func testbed(t *testing.T, g *workloads.Graph) (*devices.Cluster, *devices.Estimates) {
	t.Helper()
	c, err := devices.NewPreset("2xV100-nvlink+cpu")
	if err != nil {
		t.Fatal(err)
	}
	est, err := devices.NewEstimates(g, c, devices.EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, est
}
