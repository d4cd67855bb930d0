// Package etdef holds the Go types of the MLCommons Chakra execution-trace
// schema (et_def.proto of mlcommons/chakra, schema/protobuf/et_def.proto,
// Apache-2.0), generated with protoc and protoc-gen-go from the copy in
// ../shared/traces/chakra/. Regenerate with `go generate` after
// `make deps` (protoc from Debian's protobuf-compiler) and
// `go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12`.
package etdef

//go:generate protoc -I ../../../../shared/traces/chakra --go_out=. --go_opt=paths=source_relative --go_opt=Met_def.proto=placesim/workloads/chakra/etdef et_def.proto
