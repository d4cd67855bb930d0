package study

import (
	"fmt"
	"strings"

	"placesim/workloads"
	"placesim/workloads/zoo"
)

// FileReader reads a workload file; formats register one per extension or
// content sniffing (see LoadWorkload).
type FileReader func(path string) (*workloads.Graph, error)

// fileReaders is the explicit list of workload file formats, tried in
// order; each returns errNotMine when the file is not in its format.
var fileReaders []FileReader

// LoadWorkload resolves a workload spec: "zoo:NAME[?params]" builds a zoo
// model; anything else is a file path read by the first format that claims
// it. The graph is validated.
func LoadWorkload(spec string) (*workloads.Graph, error) {
	if strings.HasPrefix(spec, "zoo:") {
		return zoo.Build(spec)
	}
	g, err := readWorkloadFile(spec)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("workload %q: %w", spec, err)
	}
	return g, nil
}
