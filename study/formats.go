package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"placesim/internal/readfile"
	"placesim/workloads"
	"placesim/workloads/chakra"
	"placesim/workloads/fiddle"
	"placesim/workloads/native"
	"placesim/workloads/onnx"
)

// ErrUnknownFormat is wrapped by the error for a workload file in none of
// the formats placesim reads.
var ErrUnknownFormat = errors.New("unknown workload format")

// formatList names the workload file formats, for error messages.
const formatList = `placesim native JSON (top-level "format": "placesim-workload"), ` +
	`msr-fiddle JSON (top-level maxFPGAs and nodes; options as file.json?contract=layers&strict=true), ` +
	`ONNX model (*.onnx, options as model.onnx?batch_size=32&training=true), ` +
	`Chakra execution trace (*.et, *.et.gz or a set trace.%d.et; options as trace.et?device=H100-80GB&strict=true), ` +
	`PyTorch execution trace JSON (top-level schema and nodes; options as et.json?kineto=kineto.json)`

// readWorkloadFile reads a workload file, sniffing its format: a path
// ending in .onnx (or a file that decodes as an ONNX ModelProto) is an
// ONNX model; a JSON object is msr-fiddle or native JSON by its top-level
// fields. A query after the path ("model.onnx?batch_size=8",
// "graph.json?contract=layers") gives ONNX or msr-fiddle import options.
func readWorkloadFile(spec string) (*workloads.Graph, error) {
	path, query := spec, ""
	if _, err := os.Stat(spec); err != nil {
		if p, q, ok := strings.Cut(spec, "?"); ok {
			path, query = p, q
		}
	}
	if chakra.IsChakraPath(path) {
		g, _, _, err := LoadTrace(spec)
		return g, err
	}
	data, err := readfile.Read(path, readfile.MaxWorkload)
	if err != nil {
		return nil, fmt.Errorf("read workload %q: %w", path, err)
	}
	if looksJSON(data) && chakra.IsPyTorch(data) {
		g, _, err := loadPyTorch(spec, path, query, data)
		return g, err
	}
	isONNX := strings.EqualFold(filepath.Ext(path), ".onnx")
	if !isONNX && !looksJSON(data) && onnx.Detect(data) {
		isONNX = true
	}
	if isONNX {
		opts, err := onnx.ParseOptions(query)
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
		return onnx.Parse(data, path, opts)
	}
	format := ""
	if looksJSON(data) {
		switch {
		case fiddle.Detect(data):
			format = "fiddle"
		case native.Detect(data):
			format = "native"
		default:
			// A malformed or truncated file: its leading fields still say
			// which parser gives the precise error.
			format = topKeysFormat(data)
		}
	}
	if query != "" && format != "fiddle" {
		return nil, fmt.Errorf("workload %q: options %q apply to ONNX models and msr-fiddle files only", spec, query)
	}
	switch format {
	case "fiddle":
		opts, err := fiddle.ParseOptions(query)
		if err != nil {
			return nil, fmt.Errorf("workload %q: %w", spec, err)
		}
		return fiddle.ParseWith(data, path, opts)
	case "native":
		return native.Parse(data, path)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("workload %q: %w: the file is empty (valid: %s)", path, ErrUnknownFormat, formatList)
	}
	return nil, fmt.Errorf("workload %q: %w (valid: %s)", path, ErrUnknownFormat, formatList)
}

// looksJSON reports a file whose first non-space byte opens an object.
func looksJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// topKeysFormat reads the top-level keys of a JSON object as far as it is
// well formed and says which format they belong to ("" if none).
func topKeysFormat(data []byte) string {
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case "format", "ops":
			return "native"
		case "maxFPGAs", "maxCPUs", "maxSizePerFPGA", "nodes":
			return "fiddle"
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
