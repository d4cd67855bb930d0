package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"placesim/workloads/zoo"
)

func TestModelsListsZoo(t *testing.T) {
	code, out, errs := run(t, "models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []struct {
		Name                                               string
		DefaultBatch                                       int
		OpForward, OpTraining, LayerForward, LayerTraining int
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(zoo.Names()) {
		t.Fatalf("%d models listed, the zoo has %d", len(rows), len(zoo.Names()))
	}
	for i, r := range rows {
		if r.Name != zoo.Names()[i] {
			t.Errorf("row %d is %q, want %q", i, r.Name, zoo.Names()[i])
		}
		if !(r.LayerForward < r.OpForward && r.OpForward < r.OpTraining && r.LayerForward < r.LayerTraining) {
			t.Errorf("%s: op counts op %d/%d, layer %d/%d (forward/training) out of order", r.Name, r.OpForward, r.OpTraining, r.LayerForward, r.LayerTraining)
		}
		if r.Name == "resnet50" {
			g, err := zoo.Build("resnet50?training=true")
			if err != nil {
				t.Fatal(err)
			}
			if r.OpTraining != len(g.Ops) {
				t.Errorf("resnet50 training: %d ops listed, zoo.Build gives %d", r.OpTraining, len(g.Ops))
			}
		}
	}
	code, out, _ = run(t, "models")
	if code != 0 || !strings.Contains(out, "tensor_holography") || !strings.Contains(out, "Vaswani et al. 2017") {
		t.Fatalf("exit %d, table:\n%s", code, out)
	}
}
