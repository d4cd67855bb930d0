package study

import (
	"fmt"
	"os"
	"strings"

	"placesim/devices"
	"placesim/internal/readfile"
	"placesim/workloads"
	"placesim/workloads/chakra"
)

// splitSpec splits a workload file spec into its path and its query: the
// part after '?' when the whole spec names no file.
func splitSpec(spec string) (path, query string) {
	path = spec
	if _, err := os.Stat(spec); err != nil {
		if p, q, ok := strings.Cut(spec, "?"); ok {
			path, query = p, q
		}
	}
	return path, query
}

// traceOptions parses a trace spec's options and checks its device kind
// against the built-in kinds (its canonical name keys the measured times).
func traceOptions(spec, query string) (chakra.Options, error) {
	opts, err := chakra.ParseOptions(query)
	if err != nil {
		return opts, fmt.Errorf("workload %q: %w", spec, err)
	}
	if opts.Device != "" {
		k, err := devices.KindByName(opts.Device)
		if err != nil {
			return opts, fmt.Errorf("workload %q: trace option device: %w", spec, err)
		}
		opts.Device = k.Name
	}
	return opts, nil
}

// LoadTrace reads a workload spec that names an execution trace (a Chakra
// ET file *.et or *.et.gz, a set trace.%d.et, or a PyTorch execution trace
// JSON) and returns its graph and what the trace holds; ok is false for a
// spec that names no trace.
func LoadTrace(spec string) (g *workloads.Graph, sum *chakra.Summary, ok bool, err error) {
	if strings.HasPrefix(spec, "zoo:") {
		return nil, nil, false, nil
	}
	path, query := splitSpec(spec)
	if chakra.IsChakraPath(path) {
		opts, err := traceOptions(spec, query)
		if err != nil {
			return nil, nil, true, err
		}
		g, sum, err := chakra.Load(path, opts)
		return g, sum, true, err
	}
	if !strings.HasSuffix(strings.ToLower(path), ".json") {
		return nil, nil, false, nil
	}
	data, err := readfile.Read(path, readfile.MaxWorkload)
	if err != nil || !chakra.IsPyTorch(data) {
		return nil, nil, false, nil
	}
	g, sum, err = loadPyTorch(spec, path, query, data)
	return g, sum, true, err
}

// loadPyTorch builds a PyTorch execution trace's graph.
func loadPyTorch(spec, path, query string, data []byte) (*workloads.Graph, *chakra.Summary, error) {
	opts, err := traceOptions(spec, query)
	if err != nil {
		return nil, nil, err
	}
	return chakra.LoadPyTorch(data, path, opts)
}
