package study

import (
	"strings"
	"testing"

	"placesim/engine"
)

// TestMaxLoadGap: the simulated time per sample is put beside the max-load
// and the gap is explained by which side of the max-load it falls on.
func TestMaxLoadGap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		period float64 // seconds per sample
		want   string
	}{
		{"within", 0.0996, "within 1 %"},
		{"below", 0.080, "below the max-load"},
		{"above", 0.110, "above the max-load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ml := 0.100 // seconds per sample
			o := &Record{MaxLoad: &ml, StepTime: 30, Throughput: 256 / 30.0, Result: &engine.Result{
				Pipeline: &engine.PipelineStats{MicroBatches: 256, Period: tc.period, PeriodPerSample: tc.period},
				Devices:  []engine.DeviceStats{{Name: "acc0", Busy: 256 * 0.07}, {Name: "acc1", Busy: 256 * 0.075}}}}
			text := strings.Join(MaxLoadGap(o), "\n")
			if !strings.Contains(text, tc.want) {
				t.Errorf("gap text does not say %q:\n%s", tc.want, text)
			}
			if tc.name == "below" && !strings.Contains(text, "75.000 ms per sample on acc1") {
				t.Errorf("gap text does not name the busiest device's compute:\n%s", text)
			}
		})
	}
	if MaxLoadGap(&Record{}) != nil {
		t.Error("an outcome without a max-load or pipeline has a gap")
	}
}
