package study

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"placesim/engine"
)

// TestWriteRecordsCSVRoundTrip reads results.csv back through
// encoding/csv: every row has the header's width and every field its
// value, with commas, quotes and line breaks in names and errors.
func TestWriteRecordsCSVRoundTrip(t *testing.T) {
	t.Parallel()
	res := &Results{Records: []Record{
		{Point: Point{Index: 0, Workload: "zoo:mlp?batch=32&training=true", Cluster: "4xV100-pcie", Placer: "m-etf", Seed: 1,
			Settings: []Setting{{Param: "link.nvlink.bandwidth", Value: "2x"}, {Param: "batch", Value: "64"}}},
			StepTime: 1.25e-3, Throughput: 25600, PeakMemory: []int64{5, 7}},
		{Point: Point{Index: 1, Workload: `a "quoted", file.json`, Cluster: "c,1", Placer: "round-robin", Seed: 2},
			OOM: &engine.OOM{DeviceName: "gpu,0"}, PeakMemory: []int64{9}},
		{Point: Point{Index: 2, Workload: "w", Cluster: "c", Placer: "expert", Seed: 3},
			Error: "place: read \"x,y\":\nno such file"},
		{Point: Point{Index: 3, Workload: "w", Cluster: "c", Placer: "fastt-dpos", Seed: 1, Regime: "step"},
			NotComparable: "replicates the model itself"},
	}}
	var buf bytes.Buffer
	if err := WriteRecordsCSV(&buf, res); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v\n%s", err, buf.String())
	}
	if len(recs) != 1+len(res.Records) {
		t.Fatalf("%d records, want %d", len(recs), 1+len(res.Records))
	}
	for i, r := range res.Records {
		got := recs[i+1]
		want := map[string]string{"index": strconv.Itoa(r.Index), "workload": r.Workload, "cluster": r.Cluster,
			"placer": r.Placer, "seed": strconv.FormatUint(r.Seed, 10), "error": r.Error,
			"notComparable": r.NotComparable, "maxPeakMemory": strconv.FormatInt(r.MaxPeak(), 10)}
		if r.Error != "" || r.NotComparable != "" {
			// not simulated: no figures, not zeros
			want["stepTime"], want["throughput"], want["maxPeakMemory"] = "", "", ""
		}
		if r.OOM != nil {
			want["oom"] = r.OOM.DeviceName
		}
		if i == 0 {
			want["settings"] = "link.nvlink.bandwidth=2x batch=64"
			want["stepTime"] = "0.00125"
		}
		for j, h := range recs[0] {
			if w, ok := want[h]; ok && got[j] != w {
				t.Errorf("record %d, column %s: %q, want %q", i, h, got[j], w)
			}
		}
	}
}

// TestSweepLogX: the sweep chart's X axis is logarithmic for scale
// factors, for LO..HI:N ranges (log steps) and for lists spanning two
// decades; linear for a narrow list.
func TestSweepLogX(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rng      string
		allScale bool
		xs       []float64
		want     bool
	}{
		{"scale factors", "0.5x,1x", true, []float64{0.5, 1}, true},
		{"value range in log steps", "1..1024:6", false, []float64{1, 4, 16, 64, 256, 1024}, true},
		{"narrow list", "32,48,64", false, []float64{32, 48, 64}, false},
		{"list over two decades", "1,10,100", false, []float64{1, 10, 100}, true},
		{"list just under two decades", "1,99", false, []float64{1, 99}, false},
		{"list with zero", "0,100,1000", false, []float64{0, 100, 1000}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sweepLogX(tc.rng, tc.allScale, tc.xs); got != tc.want {
				t.Fatalf("sweepLogX(%q, %v, %v) = %v, want %v", tc.rng, tc.allScale, tc.xs, got, tc.want)
			}
		})
	}
}

// TestPointCount: a scenario's point count is the product of its
// dimensions, refused above MaxPoints before anything is allocated (also
// when the product would overflow int64).
func TestPointCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dims []int // workloads, clusters, settings, steps, regimes, placers, seeds
		want int
		ok   bool
	}{
		{"one point", []int{1, 1, 1, 1, 1, 1, 1}, 1, true},
		{"product", []int{2, 3, 1, 7, 2, 21, 5}, 2 * 3 * 7 * 2 * 21 * 5, true},
		{"exactly the limit", []int{1, 1, 1, 10000, 1, 10, 10}, MaxPoints, true},
		{"one above", []int{1, 1, 1, 10000, 1, 10, 11}, 0, false},
		{"2,000 seeds x 10,000 steps x 21 placers", []int{1, 1, 1, 10000, 1, 21, 2000}, 0, false},
		{"would overflow int64", []int{1 << 30, 1 << 30, 1 << 30, 1, 1, 1, 1}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.dims
			n, err := pointCount(d[0], d[1], d[2], d[3], d[4], d[5], d[6])
			if tc.ok {
				if err != nil || n != tc.want {
					t.Fatalf("pointCount = %d, %v; want %d", n, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "more than 1000000 points") {
				t.Fatalf("pointCount = %d, %v; want an error naming the limit", n, err)
			}
		})
	}
}
