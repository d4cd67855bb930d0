// Package fuzzcorpus holds no code, only a test: every fuzz target of the
// repository (a func FuzzX in a *_test.go file) has a committed corpus in
// its package's testdata/fuzz/FuzzX, which plain go test replays in CI,
// and the README's table of fuzz targets names each with its corpus size.
package fuzzcorpus
