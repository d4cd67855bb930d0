package study

import (
	"fmt"

	"placesim/workloads"
)

// readWorkloadFile dispatches on the file's format.
func readWorkloadFile(path string) (*workloads.Graph, error) {
	return nil, fmt.Errorf("workload %q: no importer for this file yet (use zoo:NAME)", path)
}
