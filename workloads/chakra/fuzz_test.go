package chakra_test

import (
	"os"
	"testing"

	"placesim/workloads/chakra"
	"placesim/workloads/chakra/etdef"
)

// FuzzChakra checks that no input makes the Chakra reader panic and that
// every trace it accepts builds into a valid graph or is refused with an
// error. Seeds: small streams, the first messages of the shared trace,
// and the corpus in testdata/fuzz/FuzzChakra.
func FuzzChakra(f *testing.F) {
	f.Add(stream(f, nil, comp(1, 5), comp(2, 7, 1)))
	coll := &etdef.Node{Id: 3, Name: "ncclKernel_AllReduce", Type: etdef.NodeType_COMM_COLL_NODE, DurationMicros: 9, DataDeps: []uint64{2},
		Attr: []*etdef.AttributeProto{{Name: "comm_type", Value: &etdef.AttributeProto_Int64Val{Int64Val: 0}}, {Name: "comm_size", Value: &etdef.AttributeProto_Int64Val{Int64Val: 4096}}}}
	f.Add(stream(f, nil, comp(1, 5), comp(2, 7, 1), coll))
	pg := &etdef.Node{Id: 4, Name: "## process_group:init ##", Type: etdef.NodeType_METADATA_NODE,
		Inputs: &etdef.IOInfo{Values: `['[{"pg_name": "0", "backend_id": 7, "backend_config": "cuda:nccl", "ranks": [0], "group_size": 1}]']`}}
	ag := &etdef.Node{Id: 5, Name: "ncclKernel_AllGather", Type: etdef.NodeType_COMM_COLL_NODE, DataDeps: []uint64{1},
		Inputs:  &etdef.IOInfo{Values: "[[10, 11, 0, 64, 4, 'cuda:0']]"},
		Outputs: &etdef.IOInfo{Values: "[[12, 13, 0, 128, 4, 'cuda:0']]"},
		Attr:    []*etdef.AttributeProto{{Name: "pg_name", Value: &etdef.AttributeProto_StringVal{StringVal: "0"}}}}
	send := &etdef.Node{Id: 6, Name: "send", Type: etdef.NodeType_COMM_SEND_NODE, DataDeps: []uint64{5},
		Attr: []*etdef.AttributeProto{{Name: "comm_dst", Value: &etdef.AttributeProto_Int64Val{Int64Val: 1}}, {Name: "comm_size", Value: &etdef.AttributeProto_Int64Val{Int64Val: 64}}}}
	mem := &etdef.Node{Id: 7, Name: "load", Type: etdef.NodeType_MEM_LOAD_NODE, DataDeps: []uint64{6},
		Attr: []*etdef.AttributeProto{{Name: "tensor_size", Value: &etdef.AttributeProto_Uint64Val{Uint64Val: 1 << 20}}, {Name: "is_cpu_op", Value: &etdef.AttributeProto_BoolVal{BoolVal: true}}}}
	f.Add(stream(f, &etdef.GlobalMetadata{Version: "1.0.0"}, comp(1, 5), pg, ag, send, mem))
	if data, err := os.ReadFile("../../../shared/traces/chakra/chakra.0.et"); err == nil {
		// the metadata and the first nodes, cut at a message boundary
		_, _, offs := decodeAll(f, data)
		if len(offs) > 12 {
			f.Add(data[:offs[12]])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{false, true} {
			tr, err := chakra.DecodeTrace(data, "fuzz.et", chakra.Options{Strict: strict})
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error")
				}
				continue
			}
			g, s, err := chakra.Build(tr, chakra.Options{Strict: strict})
			if err != nil {
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("accepted graph is invalid: %v", err)
			}
			if s.Nodes < len(g.Ops)-s.Collective || s.LongestChain < 0 {
				t.Fatalf("summary %d nodes for %d ops, chain %g", s.Nodes, len(g.Ops), s.LongestChain)
			}
		}
	})
}

// ptSeed is a small PyTorch execution trace: a process group, an operator
// that writes a tensor, one that reads it, and an all-gather.
const ptSeed = `{"schema": "1.0.2-chakra.0.0.4", "pid": 1, "nodes": [
 {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 0, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
 {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
 {"id": 3, "name": "## process_group:init ##", "ctrl_deps": 2, "inputs": {"values": ["[{\"pg_name\": \"0\", \"backend_id\": 9, \"backend_config\": \"cuda:nccl\", \"ranks\": [], \"group_size\": 2, \"group_count\": 1}]"], "shapes": [[]], "types": ["String"]}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
 {"id": 4, "name": "aten::mm", "ctrl_deps": 2, "inputs": {"values": [[5,6,0,64,4,"cuda:0"],[7,8,0,64,4,"cuda:0"]], "shapes": [[8,8],[8,8]], "types": ["Tensor(float)","Tensor(float)"]}, "outputs": {"values": [[9,10,0,64,4,"cuda:0"]], "shapes": [[8,8]], "types": ["Tensor(float)"]}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 1}]},
 {"id": 11, "name": "c10d::allgather_", "ctrl_deps": 2, "inputs": {"values": [[9,10,0,64,4,"cuda:0"]], "shapes": [[8,8]], "types": ["Tensor(float)"]}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 2}]},
 {"id": 12, "name": "record_param_comms", "ctrl_deps": 11, "inputs": {"values": [[[9,10,0,64,4,"cuda:0"]], 1, 9, 0, "all_gather", [], [], 2], "shapes": [[[8,8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Int","Int","String","GenericList[]","GenericList[]","Int"]}, "outputs": {"values": [], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": 3}]}
]}`

// FuzzPyTorch checks that no input makes the PyTorch execution-trace
// reader panic and that every trace it accepts builds into a valid graph.
// Seeds: ptSeed and the corpus in testdata/fuzz/FuzzPyTorch.
func FuzzPyTorch(f *testing.F) {
	f.Add([]byte(ptSeed))
	f.Add([]byte(`{"schema": "9", "pid": 1, "nodes": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, s, err := chakra.LoadPyTorch(data, "fuzz.json", chakra.Options{})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted graph is invalid: %v", err)
		}
		if s.Nodes != len(g.Ops) {
			t.Fatalf("summary %d nodes for %d ops", s.Nodes, len(g.Ops))
		}
	})
}
