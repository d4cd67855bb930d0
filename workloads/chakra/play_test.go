package chakra_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
	"placesim/workloads/chakra"
	"placesim/workloads/chakra/etdef"
)

// chainOf is the longest chain of measured durations through a rank's
// data dependencies, computed from the nodes protodelim decoded.
func chainOf(nodes []*etdef.Node) float64 {
	byID := map[uint64]*etdef.Node{}
	for _, n := range nodes {
		byID[n.GetId()] = n
	}
	memo := map[uint64]float64{}
	var best float64
	// the trace lists a node after its dependencies except where it does
	// not; iterate to a fixed point (the dependencies are acyclic)
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			var start float64
			for _, d := range n.GetDataDeps() {
				if _, ok := byID[d]; ok && memo[d] > start {
					start = memo[d]
				}
			}
			v := start + float64(n.GetDurationMicros())*1e-6
			if v > memo[n.GetId()]+1e-15 {
				memo[n.GetId()], changed = v, true
			}
			best = max(best, v)
		}
	}
	return best
}

// TestCriticalPathAtLeastLongestChain plays the real trace with every
// node's duration (host operators on the accelerator's stream, then on the
// host CPU of 2xV100-nvlink+cpu): the step is no shorter than the longest
// chain of measured durations, computed here from the raw nodes.
func TestCriticalPathAtLeastLongestChain(t *testing.T) {
	_, nodes, _ := decodeAll(t, readShared(t, "chakra.0.et"))
	chain := chainOf(nodes)
	for _, tc := range []struct{ cpu, cluster string }{{chakra.CPUDevice, "1xV100"}, {chakra.CPUHost, "2xV100-nvlink+cpu"}} {
		t.Run(tc.cpu, func(t *testing.T) {
			g, s, err := chakra.Load(sharedET(t, "chakra.0.et"), chakra.Options{CPU: tc.cpu})
			if err != nil {
				t.Fatal(err)
			}
			if !scalar.EqualWithinAbsOrRel(s.LongestChain, chain, secondsTol, secondsTol) {
				t.Fatalf("summary's longest chain %g s, raw nodes' %g s", s.LongestChain, chain)
			}
			c, err := devices.NewPreset(tc.cluster)
			if err != nil {
				t.Fatal(err)
			}
			plan := &engine.Plan{Device: make([]int, len(g.Ops))}
			for i := range g.Ops {
				if g.Ops[i].CPUOnly {
					plan.Device[i] = len(c.Devices) - 1 // the preset's CPU
				}
			}
			res, err := engine.Simulate(g, c, plan, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.StepTime < chain*(1-1e-9) {
				t.Fatalf("step %g s shorter than the longest chain %g s", res.StepTime, chain)
			}
			t.Logf("cpu=%s on %s: step %.3f ms, longest chain %.3f ms", tc.cpu, tc.cluster, res.StepTime*1e3, chain*1e3)
		})
	}
}

// TestPyTorchProcessGroup reads the shared PyTorch execution trace: its
// process group "0" has 2 ranks on NCCL, and its all-gathers are
// collectives of that group.
func TestPyTorchProcessGroup(t *testing.T) {
	data := readShared(t, "pytorch-et-1.0.2-chakra.0.0.4.json")
	if !chakra.IsPyTorch(data) {
		t.Fatal("not detected as a PyTorch execution trace")
	}
	g, s, err := chakra.LoadPyTorch(data, "et.json", chakra.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups) != 1 || s.Groups[0].Name != "0" || s.Groups[0].Size != 2 || s.Groups[0].Backend != "cuda:nccl" {
		t.Fatalf("groups %+v, want \"0\" with 2 ranks on cuda:nccl", s.Groups)
	}
	if s.Collectives["ALL_GATHER"] != 10 || s.Schema != "1.0.2-chakra.0.0.4" || len(s.Warnings) != 0 {
		t.Fatalf("collectives %v, schema %q, warnings %q", s.Collectives, s.Schema, s.Warnings)
	}
	if s.NoDuration != len(g.Ops) {
		t.Fatalf("%d ops without duration of %d: a PyTorch ET alone has no times", s.NoDuration, len(g.Ops))
	}
}

// TestKinetoTimes joins a Kineto trace to the PyTorch seed: the kernels an
// operator launched (through its callees too) become its measured time.
func TestKinetoTimes(t *testing.T) {
	dir := t.TempDir()
	k := filepath.Join(dir, "kineto.json")
	kineto := `{"traceEvents": [
	 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "dur": 30, "args": {"External id": 100, "Record function id": 1}},
	 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "dur": 20, "args": {"External id": 101, "Record function id": 3}},
	 {"ph": "X", "cat": "kernel", "name": "gemm", "dur": 12.5, "args": {"External id": 100}},
	 {"ph": "X", "cat": "kernel", "name": "gemm2", "dur": 2.5, "args": {"External id": 100}},
	 {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllGather", "dur": 40, "args": {"External id": 101}}]}`
	if err := os.WriteFile(k, []byte(kineto), 0o644); err != nil {
		t.Fatal(err)
	}
	g, s, err := chakra.LoadPyTorch([]byte(ptSeed), "seed.json", chakra.Options{Kineto: k})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"aten::mm": 15e-6, "c10d::allgather_": 40e-6}
	for i := range g.Ops {
		for name, d := range want {
			if strings.HasSuffix(g.Ops[i].Name, name) {
				if got := g.Ops[i].Measured[workloads.MeasuredAccelerator]; !scalar.EqualWithinAbsOrRel(got, d, secondsTol, secondsTol) {
					t.Fatalf("%s: measured %g s, want %g s", name, got, d)
				}
				delete(want, name)
			}
		}
	}
	if len(want) != 0 || s.NoDuration != 0 || len(g.Edges) != 1 || g.Edges[0].Bytes != 256 {
		t.Fatalf("ops not found %v, no-duration %d, edges %+v (want one of 256 bytes)", want, s.NoDuration, g.Edges)
	}
}

// twoRanks writes a two-rank set: each rank computes, all-reduces 1 MiB
// over group g (with the given members), computes again.
func twoRanks(t *testing.T, ranks string, comm etdef.CollectiveCommType) string {
	t.Helper()
	dir := t.TempDir()
	pg := &etdef.Node{Id: 9, Name: "## process_group:init ##", Type: etdef.NodeType_METADATA_NODE,
		Inputs: &etdef.IOInfo{Values: fmt.Sprintf(`['[{"pg_name": "g", "backend_id": 1, "backend_config": "cuda:nccl", "ranks": %s, "group_size": 2}]']`, ranks)}}
	for r := 0; r < 2; r++ {
		ar := &etdef.Node{Id: 2, Name: "ncclKernel_AllReduce", Type: etdef.NodeType_COMM_COLL_NODE, DurationMicros: 500, DataDeps: []uint64{1},
			Attr: []*etdef.AttributeProto{{Name: "comm_type", Value: &etdef.AttributeProto_Int64Val{Int64Val: int64(comm)}},
				{Name: "comm_size", Value: &etdef.AttributeProto_Int64Val{Int64Val: 1 << 20}},
				{Name: "pg_name", Value: &etdef.AttributeProto_StringVal{StringVal: "g"}}}}
		data := stream(t, nil, pg, comp(1, uint64(100*(r+1))), ar, comp(3, 50, 2))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("trace.%d.et", r)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "trace.%d.et")
}

// TestCollectiveBetweenRanks: an all-reduce of 1 MiB between two ranks is
// played as transfers of 2·S/n = 1 MiB each way; the ranks meet at it
// (rank 1 computes 200 µs before it, so both finish after that).
func TestCollectiveBetweenRanks(t *testing.T) {
	g, s, err := chakra.Load(twoRanks(t, "[0, 1]", etdef.CollectiveCommType_ALL_REDUCE), chakra.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.CollectivesSimulated != 2 || s.Collectives["ALL_REDUCE"] != 2 || len(s.Groups) != 1 {
		t.Fatalf("summary %+v", s)
	}
	c, err := devices.NewPreset("4xV100-pcie")
	if err != nil {
		t.Fatal(err)
	}
	plan := &engine.Plan{Device: make([]int, len(g.Ops))}
	for i := range g.Ops {
		plan.Device[i] = chakra.RankOf(&g.Ops[i])
	}
	res, err := engine.Simulate(g, c, plan, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.TransferCount != 2 || res.BytesMoved != 2<<20 {
		t.Fatalf("%d transfers of %d bytes, want 2 of 1 MiB", res.TransferCount, res.BytesMoved)
	}
	oneWay := c.TransferTime(0, 1, 1<<20)
	if want := 200e-6 + oneWay + 50e-6; res.StepTime < want*(1-1e-9) {
		t.Fatalf("step %g s, want at least %g s (slow rank's compute, the exchange, the last op)", res.StepTime, want)
	}
}

// TestRankErrors: a group naming a rank the set does not hold, a group the
// trace does not define, and a send to a missing rank are errors naming
// both.
func TestRankErrors(t *testing.T) {
	_, _, err := chakra.Load(twoRanks(t, "[0, 1, 2]", etdef.CollectiveCommType_ALL_REDUCE), chakra.Options{})
	if !errors.Is(err, chakra.ErrRank) || !strings.Contains(err.Error(), `process group "g" has rank 2`) {
		t.Fatalf("err %v, want ErrRank naming group g and rank 2", err)
	}
	orphan := comp(2, 5, 1)
	orphan.Type = etdef.NodeType_COMM_COLL_NODE
	orphan.Attr = append(orphan.Attr, &etdef.AttributeProto{Name: "pg_name", Value: &etdef.AttributeProto_StringVal{StringVal: "tp"}})
	tr, err := chakra.DecodeTrace(stream(t, nil, comp(1, 5), orphan), "x.et", chakra.Options{})
	if err == nil {
		_, _, err = chakra.Build(tr, chakra.Options{})
	}
	if !errors.Is(err, chakra.ErrRank) || !strings.Contains(err.Error(), `process group "tp"`) || !strings.Contains(err.Error(), "node 2") {
		t.Fatalf("err %v, want ErrRank naming node 2 and group tp", err)
	}
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		send := &etdef.Node{Id: 2, Name: "send", Type: etdef.NodeType_COMM_SEND_NODE, DataDeps: []uint64{1},
			Attr: []*etdef.AttributeProto{{Name: "comm_dst", Value: &etdef.AttributeProto_Int64Val{Int64Val: 5}}, {Name: "comm_size", Value: &etdef.AttributeProto_Int64Val{Int64Val: 8}}}}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t.%d.et", r)), stream(t, nil, comp(1, 5), send), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = chakra.Load(filepath.Join(dir, "t.%d.et"), chakra.Options{})
	if !errors.Is(err, chakra.ErrRank) || !strings.Contains(err.Error(), "names rank 5") {
		t.Fatalf("err %v, want ErrRank naming rank 5", err)
	}
}
