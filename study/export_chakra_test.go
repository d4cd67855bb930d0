package study_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"google.golang.org/protobuf/encoding/protodelim"

	"placesim/engine"
	"placesim/placers/builtin"
	"placesim/study"
	"placesim/workloads/chakra"
	"placesim/workloads/chakra/etdef"
)

// stepTol is the round trip's tolerance on the step time (issue 30: the
// same step time within 0.1 %).
const stepTol = 1e-3

// TestChakraRoundTrip exports a zoo workload placed on 4 GPUs as per-rank
// Chakra ETs, checks that every file decodes with the types generated
// from et_def.proto, reads the set back and plays it rank by rank on the
// same cluster: the same step time within 0.1 %.
func TestChakraRoundTrip(t *testing.T) {
	reg, err := builtin.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ workload, placer string }{
		{"zoo:inception_v3?batch=32&training=true&granularity=layer", "m-etf"},
		{"zoo:transformer?granularity=op&training=true&layers=2", "round-robin"},
	} {
		t.Run(tc.placer, func(t *testing.T) {
			req := study.PlaceRequest{Inputs: study.Inputs{Workload: tc.workload, Cluster: "4xV100-pcie"}, Spec: study.Spec{Placer: tc.placer, Seed: 1}}
			files, res, err := study.ExportChakra(context.Background(), reg, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 4 || res.TransferCount == 0 {
				t.Fatalf("%d files, %d transfers: want 4 ranks exchanging data", len(files), res.TransferCount)
			}
			dir := t.TempDir()
			var nodes int
			for r, f := range files {
				nodes += checkDecodes(t, f)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("trace.%d.et", r)), f, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g, sum, err := chakra.Load(filepath.Join(dir, "trace.%d.et"), chakra.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Nodes != nodes || len(sum.Ranks) != 4 || sum.Send != res.TransferCount || sum.Recv != sum.Send {
				t.Fatalf("read back %d nodes of ranks %v, %d sends, %d recvs; wrote %d nodes, %d transfers", sum.Nodes, sum.Ranks, sum.Send, sum.Recv, nodes, res.TransferCount)
			}
			plan := &engine.Plan{Device: make([]int, len(g.Ops))}
			for i := range g.Ops {
				plan.Device[i] = chakra.RankOf(&g.Ops[i])
			}
			_, c, err := study.Inputs{Workload: tc.workload, Cluster: "4xV100-pcie"}.Load()
			if err != nil {
				t.Fatal(err)
			}
			back, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinRel(back.StepTime, res.StepTime, stepTol) {
				t.Fatalf("step time %g s read back, %g s exported (tolerance %g relative)", back.StepTime, res.StepTime, stepTol)
			}
			if back.StepTime < sum.LongestChain*(1-1e-9) {
				t.Fatalf("step %g s shorter than the longest chain of measured durations %g s", back.StepTime, sum.LongestChain)
			}
			t.Logf("%s by %s on 4xV100-pcie: step %.6f ms exported, %.6f ms read back; %d nodes, %d transfers", tc.workload, tc.placer, res.StepTime*1e3, back.StepTime*1e3, nodes, res.TransferCount)
		})
	}
}

// checkDecodes decodes a file with the generated types alone (protodelim
// and etdef, not the chakra reader) and returns its node count.
func checkDecodes(t *testing.T, data []byte) int {
	t.Helper()
	r := &byteReader{data: data}
	meta := &etdef.GlobalMetadata{}
	if err := protodelim.UnmarshalFrom(r, meta); err != nil || meta.GetVersion() != chakra.WriteVersion {
		t.Fatalf("metadata %v, err %v", meta, err)
	}
	n := 0
	for r.pos < len(data) {
		node := &etdef.Node{}
		if err := protodelim.UnmarshalFrom(r, node); err != nil {
			t.Fatalf("node %d: %v", n, err)
		}
		if len(node.ProtoReflect().GetUnknown()) != 0 || node.GetType() == etdef.NodeType_INVALID_NODE {
			t.Fatalf("node %d: unknown fields or no type: %v", n, node)
		}
		n++
	}
	return n
}

type byteReader struct {
	data []byte
	pos  int
}

func (b *byteReader) Read(p []byte) (int, error) {
	if b.pos >= len(b.data) {
		return 0, fmt.Errorf("EOF")
	}
	k := copy(p, b.data[b.pos:])
	b.pos += k
	return k, nil
}

func (b *byteReader) ReadByte() (byte, error) {
	if b.pos >= len(b.data) {
		return 0, fmt.Errorf("EOF")
	}
	b.pos++
	return b.data[b.pos-1], nil
}
