package chakra_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"placesim/workloads/chakra"
)

// TestGzipStream: a gzip-compressed ET reads as the plain one (Chakra's
// readers accept both); a cut gzip stream is a format error.
func TestGzipStream(t *testing.T) {
	plain := stream(t, nil, comp(1, 5), comp(2, 7, 1))
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := chakra.DecodeTrace(buf.Bytes(), "x.et.gz", chakra.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, s, err := chakra.Build(tr, chakra.Options{})
	if err != nil || s.Nodes != 2 || s.LongestChain < 11.9e-6 || s.LongestChain > 12.1e-6 {
		t.Fatalf("summary %+v, err %v: want 2 nodes, chain 12 µs", s, err)
	}
	_, err = chakra.DecodeTrace(buf.Bytes()[:buf.Len()-6], "x.et.gz", chakra.Options{})
	if !errors.Is(err, chakra.ErrFormat) || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("cut gzip: err %v", err)
	}
	_, _, err = chakra.LoadPyTorch([]byte(ptSeed), "seed.json", chakra.Options{Kineto: "/nonexistent/kineto.json"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/kineto.json") {
		t.Fatalf("missing Kineto trace: err %v", err)
	}
}
