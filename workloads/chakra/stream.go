package chakra

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

	"google.golang.org/protobuf/proto"

	"placesim/workloads/chakra/etdef"
)

// MaxNodes bounds the nodes of a trace (all ranks together): 4,000,000,
// several times the largest graph the engine is benchmarked on, so that a
// file of 10^7 nodes is refused at once, before any is decoded.
const MaxNodes = 4_000_000

// maxUnzipped bounds a gzip-compressed trace once decompressed (2 GiB, as
// readfile.MaxWorkload bounds a plain one).
const maxUnzipped = 2 << 30

// KnownVersions are the GlobalMetadata versions Chakra publishes ("" in
// traces that predate the field, 0.0.4 and 1.0.0 from its generator and
// converter, mlcommons/chakra src/generator/generator.py).
var KnownVersions = []string{"", "0.0.4", "1.0.0"}

// knownAttrs are the node attributes the reader understands: those the
// Chakra PyTorch converter writes (pytorch_converter.py), those ASTRA-sim
// reads (num_ops, tensor_size, comm_src, comm_dst, comm_tag), and
// placesim's own.
var knownAttrs = map[string]bool{
	"rf_id": true, "fw_parent": true, "seq_id": true, "scope": true, "tid": true, "fw_tid": true,
	"op_schema": true, "is_cpu_op": true, "stream": true,
	"comm_type": true, "comm_size": true, "pg_name": true, "involved_dim": true,
	"comm_src": true, "comm_dst": true, "comm_tag": true, "comm_priority": true,
	"num_ops": true, "tensor_size": true, "op_type": true, "tensor_loc": true,
	attrDuration: true, attrDepBytes: true, attrOutput: true, attrParams: true, attrTemp: true,
}

// knownMetaAttrs are the GlobalMetadata attributes the reader understands.
var knownMetaAttrs = map[string]bool{"schema": true, "pid": true, "time": true, "start_ts": true, "finish_ts": true, "input_file": true, attrDevice: true}

// placesim's own attributes (written by Write, read back exactly).
const (
	attrDuration = "placesim_duration_s"
	attrDepBytes = "placesim_dep_bytes"
	attrOutput   = "placesim_output_bytes"
	attrParams   = "placesim_param_bytes"
	attrTemp     = "placesim_temp_bytes"
	attrDevice   = "placesim_device"
)

// frame is one message of the stream: its payload's byte range.
type frame struct{ off, start, end int }

// frames splits a length-delimited stream into its messages without
// decoding them, so that a truncated stream, a wrong length or too many
// messages is an error naming the byte offset before any work.
func frames(data []byte, file string, budget int) ([]frame, error) {
	n, err := walkFrames(data, file, budget, nil)
	if err != nil {
		return nil, err
	}
	out := make([]frame, 0, n)
	_, err = walkFrames(data, file, budget, &out)
	return out, err
}

// walkFrames counts the messages (appending them to out when it is not
// nil), failing at the first bad length or past budget messages.
func walkFrames(data []byte, file string, budget int, out *[]frame) (int, error) {
	count := 0
	for off := 0; off < len(data); {
		n, k := binary.Uvarint(data[off:])
		if k == 0 {
			return 0, fmt.Errorf("%w: %s: truncated length prefix at byte offset %d (the file ends inside it)", ErrFormat, file, off)
		}
		if k < 0 {
			return 0, fmt.Errorf("%w: %s: bad length prefix at byte offset %d (a varint longer than 64 bits)", ErrFormat, file, off)
		}
		start := off + k
		if n == 0 {
			// Chakra's readers stop at a zero length (protolib.decodeMessage).
			if start < len(data) {
				return 0, fmt.Errorf("%w: %s: zero-length message at byte offset %d followed by %d more bytes (a zero length ends a Chakra stream)", ErrFormat, file, off, len(data)-start)
			}
			break
		}
		if n > uint64(len(data)-start) {
			return 0, fmt.Errorf("%w: %s: message at byte offset %d declares %d bytes but only %d remain (truncated file or wrong length)", ErrFormat, file, off, n, len(data)-start)
		}
		if count > budget {
			return 0, fmt.Errorf("%w: %s: more than %d nodes (at byte offset %d; valid range: <= %d nodes in a trace set)", ErrFormat, file, MaxNodes, off, MaxNodes)
		}
		if out != nil {
			*out = append(*out, frame{off, start, start + int(n)})
		}
		count++
		off = start + int(n)
	}
	return count, nil
}

// gunzip decompresses a gzip-compressed trace (Chakra's readers accept
// both, protolib.openFileRd).
func gunzip(data []byte, file string) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: gzip: %v", ErrFormat, file, err)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxUnzipped+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: gzip: %v (after %d bytes)", ErrFormat, file, err, len(out))
	}
	if len(out) > maxUnzipped {
		return nil, fmt.Errorf("%w: %s: decompresses to more than %d bytes (valid range: <= 2 GiB)", ErrFormat, file, maxUnzipped)
	}
	return out, nil
}

// decodeRank decodes one rank's Chakra ET; budget is how many nodes the
// set may still hold.
func decodeRank(data []byte, file string, rank, budget int, opts Options, w *warner) (*Rank, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		var err error
		if data, err = gunzip(data, file); err != nil {
			return nil, err
		}
	}
	fr, err := frames(data, file, budget)
	if err != nil {
		return nil, err
	}
	if len(fr) == 0 {
		return nil, fmt.Errorf("%w: %s: empty stream (a Chakra ET starts with a GlobalMetadata message)", ErrFormat, file)
	}
	r := &Rank{Rank: rank, File: file}
	var meta etdef.GlobalMetadata
	if err := proto.Unmarshal(data[fr[0].start:fr[0].end], &meta); err != nil {
		return nil, fmt.Errorf("%w: %s: GlobalMetadata at byte offset 0: %v", ErrFormat, file, err)
	}
	if len(meta.ProtoReflect().GetUnknown()) > 0 {
		if err := w.add("GlobalMetadata has fields et_def.proto does not define (a newer schema?)", "byte offset 0"); err != nil {
			return nil, err
		}
	}
	r.Version = meta.GetVersion()
	if !knownVersion(r.Version) {
		if err := w.add(fmt.Sprintf("unknown schema version %q (known: \"\", 0.0.4, 1.0.0)", r.Version), "GlobalMetadata"); err != nil {
			return nil, err
		}
	}
	for _, a := range meta.GetAttr() {
		switch {
		case a.GetName() == "schema":
			r.Schema = a.GetStringVal()
		case !knownMetaAttrs[a.GetName()]:
			if err := w.add(fmt.Sprintf("unknown GlobalMetadata attribute %q", a.GetName()), "GlobalMetadata"); err != nil {
				return nil, err
			}
		}
	}
	r.Nodes = make([]Node, 0, len(fr)-1)
	seen := make(map[uint64]int, len(fr))
	var pn etdef.Node
	for _, f := range fr[1:] {
		pn.Reset()
		if err := proto.Unmarshal(data[f.start:f.end], &pn); err != nil {
			return nil, fmt.Errorf("%w: %s: Node message at byte offset %d (%d bytes): %v", ErrFormat, file, f.off, f.end-f.start, err)
		}
		if prev, dup := seen[pn.GetId()]; dup {
			return nil, fmt.Errorf("%w: %s: node id %d at byte offset %d repeats the node at byte offset %d", ErrFormat, file, pn.GetId(), f.off, prev)
		}
		seen[pn.GetId()] = f.off
		n, err := fromProto(&pn, f.off, opts, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		r.Nodes = append(r.Nodes, n)
	}
	return r, nil
}

func knownVersion(v string) bool {
	for _, k := range KnownVersions {
		if v == k {
			return true
		}
	}
	return false
}

// fromProto converts one Node message.
func fromProto(pn *etdef.Node, off int, opts Options, w *warner) (Node, error) {
	where := fmt.Sprintf("node %d %q (byte offset %d)", pn.GetId(), clip(pn.GetName(), 60), off)
	n := Node{ID: pn.GetId(), Name: pn.GetName(), Deps: pn.GetDataDeps(), Parents: pn.GetCtrlDeps()}
	if len(pn.ProtoReflect().GetUnknown()) > 0 {
		if err := w.add("node has fields et_def.proto does not define (a newer schema?)", where); err != nil {
			return n, err
		}
	}
	switch pn.GetType() {
	case etdef.NodeType_COMP_NODE:
		n.Kind = Compute
	case etdef.NodeType_COMM_COLL_NODE:
		n.Kind = Collective
	case etdef.NodeType_COMM_SEND_NODE:
		n.Kind = Send
	case etdef.NodeType_COMM_RECV_NODE:
		n.Kind = Recv
	case etdef.NodeType_MEM_LOAD_NODE:
		n.Kind = MemLoad
	case etdef.NodeType_MEM_STORE_NODE:
		n.Kind = MemStore
	case etdef.NodeType_METADATA_NODE:
		n.Kind = Metadata
	default:
		if err := w.add(fmt.Sprintf("unknown node type %s (%d): played as a compute node", pn.GetType(), int32(pn.GetType())), where); err != nil {
			return n, err
		}
		n.Kind = Compute
	}
	if n.Kind == Metadata {
		n.pgText = pn.GetInputs().GetValues()
	}
	if d := pn.GetDurationMicros(); d > 0 {
		n.Duration, n.HasDuration = float64(d)*1e-6, true
	}
	if v := pn.GetInputs().GetValues(); v != "" {
		n.inputs = pyTensors(v)
	}
	if v := pn.GetOutputs().GetValues(); v != "" {
		n.outputs = pyTensors(v)
		n.OutputBytes = tensorBytes(n.outputs)
	}
	n.Bytes = tensorBytes(n.inputs) + n.OutputBytes
	hasComm := false
	for _, a := range pn.GetAttr() {
		name := a.GetName()
		if !knownAttrs[name] {
			if err := w.add(fmt.Sprintf("unknown attribute %q", name), where); err != nil {
				return n, err
			}
			continue
		}
		iv, isInt := attrInt(a)
		switch name {
		case "is_cpu_op":
			n.CPU = a.GetBoolVal()
		case "comm_type":
			if !isInt || iv < 0 || iv > math.MaxInt32 || etdef.CollectiveCommType_name[int32(iv)] == "" {
				if err := w.add(fmt.Sprintf("unknown collective type %v: played by its name", attrString(a)), where); err != nil {
					return n, err
				}
				continue
			}
			n.Coll, hasComm = etdef.CollectiveCommType(iv), true
		case "comm_size", "tensor_size":
			if isInt && iv >= 0 {
				if name == "comm_size" {
					n.CommSize = iv
				} else {
					n.Bytes = iv
					if n.CommSize == 0 {
						n.CommSize = iv
					}
				}
			}
		case "pg_name":
			n.Group = a.GetStringVal()
		case "comm_src", "comm_dst":
			if isInt && iv >= 0 && iv <= math.MaxInt32 {
				if (name == "comm_dst") == (n.Kind == Send) {
					n.Peer, n.HasPeer = int(iv), true
				}
			}
		case "comm_tag":
			if isInt {
				n.Tag = iv
			}
		case "num_ops":
			if isInt && iv >= 0 {
				n.FLOPs = float64(iv)
			}
		case attrDuration:
			if d := a.GetDoubleVal(); d >= 0 && !math.IsInf(d, 0) {
				n.Duration, n.HasDuration = d, true
			}
		case attrDepBytes:
			n.DepBytes = a.GetInt64List().GetValues()
		case attrOutput:
			if isInt && iv >= 0 {
				n.OutputBytes = iv
			}
		case attrParams:
			if isInt && iv >= 0 {
				n.ParamBytes = iv
			}
		case attrTemp:
			if isInt && iv >= 0 {
				n.TempBytes = iv
			}
		}
	}
	if n.Kind == Collective && !hasComm {
		c, ok := collFromName(n.Name)
		if !ok {
			if err := w.add("collective without comm_type whose name names no collective: played as an all-reduce", where); err != nil {
				return n, err
			}
		}
		n.Coll = c
	}
	return n, nil
}

// attrInt reads an integer attribute of any integer encoding.
func attrInt(a *etdef.AttributeProto) (int64, bool) {
	switch v := a.GetValue().(type) {
	case *etdef.AttributeProto_Int64Val:
		return v.Int64Val, true
	case *etdef.AttributeProto_Int32Val:
		return int64(v.Int32Val), true
	case *etdef.AttributeProto_Uint64Val:
		if v.Uint64Val > math.MaxInt64 {
			return 0, false
		}
		return int64(v.Uint64Val), true
	case *etdef.AttributeProto_Uint32Val:
		return int64(v.Uint32Val), true
	case *etdef.AttributeProto_Sint64Val:
		return v.Sint64Val, true
	case *etdef.AttributeProto_Sint32Val:
		return int64(v.Sint32Val), true
	case *etdef.AttributeProto_Fixed64Val:
		if v.Fixed64Val > math.MaxInt64 {
			return 0, false
		}
		return int64(v.Fixed64Val), true
	case *etdef.AttributeProto_Fixed32Val:
		return int64(v.Fixed32Val), true
	case *etdef.AttributeProto_Sfixed64Val:
		return v.Sfixed64Val, true
	case *etdef.AttributeProto_Sfixed32Val:
		return int64(v.Sfixed32Val), true
	}
	return 0, false
}

// attrString renders an attribute's value for a message.
func attrString(a *etdef.AttributeProto) string {
	if v, ok := attrInt(a); ok {
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprintf("%T", a.GetValue())
}

// collFromName infers a collective's type from its name as Chakra's
// converter does (pytorch_converter.py get_collective_comm_type).
func collFromName(name string) (etdef.CollectiveCommType, bool) {
	b := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c == '-' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	for _, m := range []struct {
		key string
		c   etdef.CollectiveCommType
	}{{"allreduce", etdef.CollectiveCommType_ALL_REDUCE}, {"alltoall", etdef.CollectiveCommType_ALL_TO_ALL},
		{"allgather", etdef.CollectiveCommType_ALL_GATHER}, {"reducescatter", etdef.CollectiveCommType_REDUCE_SCATTER},
		{"broadcast", etdef.CollectiveCommType_BROADCAST}, {"barrier", etdef.CollectiveCommType_BARRIER}} {
		if bytes.Contains(b, []byte(m.key)) {
			return m.c, true
		}
	}
	return etdef.CollectiveCommType_ALL_REDUCE, false
}

// pyTensor matches a tensor in a Chakra ET's inputs or outputs values (a
// Python literal): [tensor_id, storage_id, offset, num_elem, elem_bytes,
// 'device'] (Chakra's pytorch_tensor.py).
var pyTensor = regexp.MustCompile(`\[(\d+), (\d+), (\d+), (\d+), (\d+), ['"][^'"\]]*['"]\]`)

// pyTensors lists the tensors of a values string.
func pyTensors(s string) []tensorRef {
	ms := pyTensor.FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		return nil
	}
	out := make([]tensorRef, 0, len(ms))
	for _, m := range ms {
		id, e1 := strconv.ParseUint(m[1], 10, 64)
		st, e2 := strconv.ParseUint(m[2], 10, 64)
		ne, e3 := strconv.ParseInt(m[4], 10, 64)
		eb, e4 := strconv.ParseInt(m[5], 10, 64)
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil || ne < 0 || eb < 0 || eb > 64 || ne > math.MaxInt64/64 {
			continue
		}
		out = append(out, tensorRef{id: id, storage: st, bytes: ne * eb})
	}
	return out
}

// tensorBytes sums distinct tensors' bytes (saturating at 2^62).
func tensorBytes(ts []tensorRef) int64 {
	var s int64
	seen := make(map[[2]uint64]bool, len(ts))
	for _, t := range ts {
		k := [2]uint64{t.id, t.storage}
		if seen[k] {
			continue
		}
		seen[k] = true
		if s += t.bytes; s > 1<<62 {
			return 1 << 62
		}
	}
	return s
}

// clip shortens s to at most n bytes for messages and op names.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
