package study_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"placesim/study"
)

// bigResults is a results file of n plausible records of sweep40's
// scenario shape (the figures are fabricated; only their encoding
// matters here).
func bigResults(n int) *study.Results {
	r := &study.Results{Scenario: sweep40(), Stamp: study.NewStamp("merge")}
	for i := 0; i < n; i++ {
		st := 1e-3 * (1 + float64(i%97)/10)
		rec := study.Record{StepTime: st, Throughput: 8 / st,
			PeakMemory: []int64{1 << 20, 0, 0, 0}, Capacity: []int64{1 << 34, 1 << 34, 1 << 34, 1 << 34}}
		rec.Index, rec.Workload, rec.Cluster, rec.Placer = i, "zoo:mlp?batch=8", "4xV100-pcie", "single"
		rec.Settings = []study.Setting{{Param: "batch", Value: fmt.Sprint(i + 1)}}
		if i%7 == 3 {
			// characters encoding/json escapes (HTML and a control byte)
			rec.Error, rec.StepTime, rec.Throughput = "<a&b>\x01 failed", 0, 0
		}
		r.Records = append(r.Records, rec)
	}
	return r
}

// TestEncodeResultsMatchesEncoder: the record-at-a-time encoding writes
// exactly the bytes json.Encoder with indent "  " writes for the whole
// value (so results files, their hashes and the merge-equals-run test are
// unchanged), for no, one and many records.
func TestEncodeResultsMatchesEncoder(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		r := bigResults(n)
		got := encode(t, r)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%d records: streamed encoding differs from json.Encoder's:\n%s\nwant\n%s", n, got, want.Bytes())
		}
	}
}

// liveSampler records the largest live heap (after a collection) seen at
// any Write: the memory an encoder holds while it writes.
type liveSampler struct {
	n    int
	peak uint64
}

func (s *liveSampler) Write(p []byte) (int, error) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.peak = max(s.peak, m.HeapAlloc)
	s.n += len(p)
	return len(p), nil
}

// TestEncodeResultsStreams: encoding results holds about one record's
// JSON beyond the records themselves, not the whole file (issue 31:
// json.Encoder built the 240 MB results.json of a 400,000-record merge in
// memory twice, marshalled then indented, and merge peaked at 1.6 GB).
// The live heap at every write (through a 64 KiB buffer, as WriteResults
// uses one) may exceed the heap before encoding by at most
// streamSlackFrac of the output; a whole-value encoder holds at least
// twice the output.
func TestEncodeResultsStreams(t *testing.T) {
	const streamSlackFrac = 0.25
	r := bigResults(20000)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.HeapAlloc
	s := &liveSampler{}
	w := bufio.NewWriterSize(s, 64<<10)
	if err := study.EncodeResults(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(r)
	extra := int64(s.peak) - int64(before)
	t.Logf("%d records, %d bytes of JSON: live heap at most %d bytes above the %d before encoding", len(r.Records), s.n, extra, before)
	if float64(extra) > streamSlackFrac*float64(s.n) {
		t.Fatalf("encoding %d bytes of results held %d bytes more live heap (limit %.0f%% of the output: the encoder holds the whole file)", s.n, extra, 100*streamSlackFrac)
	}
}
