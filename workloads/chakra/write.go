package chakra

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	"placesim/workloads"
	"placesim/workloads/chakra/etdef"
)

// WriteVersion is the GlobalMetadata version Write declares (the schema
// version of Chakra 1.0.0, mlcommons/chakra src/generator/generator.py).
const WriteVersion = "1.0.0"

// Step is a placed and simulated step to export: the graph, each op's
// device, the devices' names and each op's simulated start and end
// (seconds).
type Step struct {
	Graph      *workloads.Graph
	Device     []int
	Devices    []string
	Start, End []float64
}

// Write encodes a step as one Chakra ET per device (rank = device index):
// each op is a COMP_NODE with its simulated duration (duration_micros,
// and exactly in the attribute placesim_duration_s), num_ops (FLOPs) and
// tensor_size (bytes accessed); an edge within a device is a data
// dependency, an edge between devices a COMM_SEND_NODE on the producer's
// rank and a COMM_RECV_NODE on the consumer's (comm_src, comm_dst,
// comm_tag, comm_size: one message per producer and destination device, of
// the largest edge's bytes, as the engine sends it); every op also depends
// on the op its device ran before it, so that a replay keeps the
// simulated order. Node ids are op ids (then the messages'), unique over
// the ranks.
func Write(s Step) ([][]byte, error) {
	g := s.Graph
	n := len(g.Ops)
	if len(s.Device) != n || len(s.Start) != n || len(s.End) != n {
		return nil, fmt.Errorf("export chakra: %d ops but %d devices, %d starts, %d ends", n, len(s.Device), len(s.Start), len(s.End))
	}
	nd := len(s.Devices)
	perDev := make([][]int, nd)
	for op, d := range s.Device {
		if d < 0 || d >= nd {
			return nil, fmt.Errorf("export chakra: op %q on device %d (valid range: 0..%d)", g.Ops[op].Name, d, nd-1)
		}
		if !(s.End[op] >= s.Start[op]) || math.IsInf(s.End[op], 0) {
			return nil, fmt.Errorf("export chakra: op %q simulated from %g s to %g s", g.Ops[op].Name, s.Start[op], s.End[op])
		}
		perDev[d] = append(perDev[d], op)
	}
	for _, ops := range perDev {
		sort.SliceStable(ops, func(i, j int) bool {
			if s.Start[ops[i]] != s.Start[ops[j]] {
				return s.Start[ops[i]] < s.Start[ops[j]]
			}
			return ops[i] < ops[j]
		})
	}
	// one message per producer and destination device
	type msg struct {
		src, dst int // ops' devices
		op       int // producer
		bytes    int64
		sendID   uint64
		recvID   uint64
	}
	msgs := map[[2]int]*msg{}
	var order []*msg
	next := uint64(n)
	for _, e := range g.Edges {
		a, b := s.Device[e.From], s.Device[e.To]
		if a == b {
			continue
		}
		k := [2]int{e.From, b}
		m := msgs[k]
		if m == nil {
			m = &msg{src: a, dst: b, op: e.From, sendID: next, recvID: next + 1}
			next += 2
			msgs[k] = m
			order = append(order, m)
		}
		m.bytes = max(m.bytes, e.Bytes)
	}
	nodes := make([][]*etdef.Node, nd)
	prev := make([]int, n)
	for _, ops := range perDev {
		for i, op := range ops {
			prev[op] = -1
			if i > 0 {
				prev[op] = ops[i-1]
			}
		}
	}
	for d, ops := range perDev {
		for _, op := range ops {
			o := &g.Ops[op]
			dur := s.End[op] - s.Start[op]
			node := &etdef.Node{Id: uint64(op), Name: o.Name, Type: etdef.NodeType_COMP_NODE,
				StartTimeMicros: uint64(math.Round(s.Start[op] * 1e6)), DurationMicros: uint64(math.Round(dur * 1e6))}
			var deps []uint64
			var depBytes []int64
			seen := map[uint64]bool{}
			for _, ei := range g.In(op) {
				e := g.Edges[ei]
				var id uint64
				var b int64
				if s.Device[e.From] == d {
					id, b = uint64(e.From), e.Bytes
				} else {
					id = msgs[[2]int{e.From, d}].recvID
				}
				if seen[id] {
					continue
				}
				seen[id] = true
				deps, depBytes = append(deps, id), append(depBytes, b)
			}
			if p := prev[op]; p >= 0 && !seen[uint64(p)] {
				deps, depBytes = append(deps, uint64(p)), append(depBytes, 0)
			}
			node.DataDeps = deps
			node.Attr = []*etdef.AttributeProto{
				boolAttr("is_cpu_op", false),
				{Name: "num_ops", Value: &etdef.AttributeProto_Uint64Val{Uint64Val: uint64(math.Round(o.FLOPs))}},
				{Name: "tensor_size", Value: &etdef.AttributeProto_Uint64Val{Uint64Val: uint64(o.BytesAccessed)}},
				{Name: attrDuration, Value: &etdef.AttributeProto_DoubleVal{DoubleVal: dur}},
				{Name: attrDepBytes, Value: &etdef.AttributeProto_Int64List{Int64List: &etdef.Int64List{Values: depBytes}}},
				intAttr(attrOutput, o.OutputBytes), intAttr(attrParams, o.ParamBytes), intAttr(attrTemp, o.TempBytes),
			}
			nodes[d] = append(nodes[d], node)
		}
	}
	for _, m := range order {
		tag := int64(m.op)
		nodes[m.src] = append(nodes[m.src], &etdef.Node{Id: m.sendID, Name: fmt.Sprintf("send %s to rank %d", g.Ops[m.op].Name, m.dst),
			Type: etdef.NodeType_COMM_SEND_NODE, DataDeps: []uint64{uint64(m.op)},
			Attr: []*etdef.AttributeProto{boolAttr("is_cpu_op", false), intAttr("comm_src", int64(m.src)), intAttr("comm_dst", int64(m.dst)),
				intAttr("comm_tag", tag), intAttr("comm_size", m.bytes)}})
		nodes[m.dst] = append(nodes[m.dst], &etdef.Node{Id: m.recvID, Name: fmt.Sprintf("recv %s from rank %d", g.Ops[m.op].Name, m.src),
			Type: etdef.NodeType_COMM_RECV_NODE,
			Attr: []*etdef.AttributeProto{boolAttr("is_cpu_op", false), intAttr("comm_src", int64(m.src)), intAttr("comm_dst", int64(m.dst)),
				intAttr("comm_tag", tag), intAttr("comm_size", m.bytes)}})
	}
	out := make([][]byte, nd)
	for d := range nodes {
		var buf bytes.Buffer
		meta := &etdef.GlobalMetadata{Version: WriteVersion, Attr: []*etdef.AttributeProto{
			{Name: "schema", Value: &etdef.AttributeProto_StringVal{StringVal: "placesim"}},
			{Name: attrDevice, Value: &etdef.AttributeProto_StringVal{StringVal: s.Devices[d]}},
		}}
		msgs := append([]proto.Message{meta}, asMessages(nodes[d])...)
		for _, m := range msgs {
			if _, err := protodelim.MarshalTo(&buf, m); err != nil {
				return nil, fmt.Errorf("export chakra: rank %d: %w", d, err)
			}
		}
		out[d] = buf.Bytes()
	}
	return out, nil
}

func asMessages(ns []*etdef.Node) []proto.Message {
	out := make([]proto.Message, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

func boolAttr(name string, v bool) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_BoolVal{BoolVal: v}}
}

func intAttr(name string, v int64) *etdef.AttributeProto {
	return &etdef.AttributeProto{Name: name, Value: &etdef.AttributeProto_Int64Val{Int64Val: v}}
}

// RankOf is the rank of an op of a graph read from a trace (its layer
// "rankN"), -1 for another op.
func RankOf(op *workloads.Op) int {
	var r int
	if _, err := fmt.Sscanf(op.Layer, "rank%d", &r); err != nil || fmt.Sprintf("rank%d", r) != op.Layer {
		return -1
	}
	return r
}
