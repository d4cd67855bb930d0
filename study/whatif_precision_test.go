package study_test

import (
	"strings"
	"testing"

	"placesim/devices"
	"placesim/study"
)

// TestPrecisionFrameworkSettings: precision and framework what-ifs rewrite
// a zoo spec (the run-level override), and bad values are refused before
// any work.
func TestPrecisionFrameworkSettings(t *testing.T) {
	t.Parallel()
	c, _ := devices.NewPreset("1xV100")
	tests := []struct {
		setting study.Setting
		want    string
	}{
		{study.Setting{Param: "precision", Value: "amp-fp16"}, "precision=amp-fp16"},
		{study.Setting{Param: "framework", Value: "tf1-graph"}, "framework=tf1-graph"},
	}
	for _, tc := range tests {
		t.Run(tc.setting.String(), func(t *testing.T) {
			if err := study.CheckSetting(tc.setting); err != nil {
				t.Fatal(err)
			}
			w, _, err := study.ApplySettings("zoo:mlp?training=true&precision=fp32", c, []study.Setting{tc.setting})
			if err != nil || !strings.Contains(w, tc.want) {
				t.Fatalf("workload %q (%v), want %s", w, err, tc.want)
			}
			if _, err := study.LoadWorkload(w); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, bad := range []study.Setting{{Param: "precision", Value: "fp12"}, {Param: "framework", Value: "caffe"}} {
		if err := study.CheckSetting(bad); err == nil || !strings.Contains(err.Error(), bad.Value) {
			t.Fatalf("%s: %v", bad, err)
		}
	}
	if _, _, err := study.ApplySettings("model.onnx", c, []study.Setting{{Param: "precision", Value: "fp16"}}); err == nil {
		t.Fatal("precision of a file workload accepted")
	}
}
