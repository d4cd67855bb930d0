package chakra

import (
	"fmt"
	"sort"
	"strings"

	"placesim/workloads/chakra/etdef"
)

// Kind is what a trace node does.
type Kind uint8

// Kinds of trace nodes, after Chakra's NodeType (et_def.proto).
const (
	// Compute is a compute kernel or host operator (COMP_NODE).
	Compute Kind = iota
	// Collective is a collective over a process group (COMM_COLL_NODE).
	Collective
	// Send and Recv are point-to-point transfers (COMM_SEND_NODE,
	// COMM_RECV_NODE).
	Send
	Recv
	// MemLoad and MemStore move tensor_size bytes (MEM_LOAD_NODE,
	// MEM_STORE_NODE).
	MemLoad
	MemStore
	// Metadata carries process-group information; it is not played
	// (METADATA_NODE).
	Metadata
)

var kindNames = [...]string{"compute", "collective", "send", "recv", "mem-load", "mem-store", "metadata"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Node is one node of a rank's trace in the reader's terms.
type Node struct {
	// ID is the node's id, unique within its rank.
	ID uint64
	// Name is the operator or kernel name.
	Name string
	Kind Kind
	// CPU marks a host-side operator (Chakra's is_cpu_op).
	CPU bool
	// Duration is the measured duration in seconds; HasDuration is false
	// when the trace has none (0 µs in a Chakra ET, no kernel in Kineto).
	Duration    float64
	HasDuration bool
	// Deps are the nodes this one waits for (Chakra's data_deps, the
	// dependencies Chakra's feeder resolves); DepBytes, when not nil, the
	// bytes each carries (placesim's own exports).
	Deps     []uint64
	DepBytes []int64
	// Parent is the calling operator (Chakra's ctrl_deps, which the
	// PyTorch converter fills with the caller); 0 when none.
	Parents []uint64
	// Coll is the collective's type; CommSize its bytes (Chakra's
	// comm_size: the sum of the input tensors); Group its process group
	// name ("" for every rank of the trace).
	Coll     etdef.CollectiveCommType
	CommSize int64
	Group    string
	// Peer is a send's destination or a receive's source rank (comm_dst,
	// comm_src), Tag its comm_tag; HasPeer is false when the trace does
	// not say.
	Peer    int
	HasPeer bool
	Tag     int64
	// FLOPs (Chakra's num_ops) and Bytes (tensor_size, or the input and
	// output tensors) feed the cost model when there is no duration.
	FLOPs float64
	Bytes int64
	// OutputBytes is the size of the node's output tensors; ParamBytes
	// and TempBytes are placesim's own (written by Write).
	OutputBytes, ParamBytes, TempBytes int64
	// inputs and outputs are the tensors the node reads and writes, by
	// (tensor id, storage id), for the bytes of its dependencies.
	inputs, outputs []tensorRef
	// pgText is a metadata node's process-group record.
	pgText string
}

// tensorRef is one tensor of a node's inputs or outputs.
type tensorRef struct {
	id, storage uint64
	bytes       int64
}

// Rank is one rank's trace.
type Rank struct {
	// Rank is the rank's number (from the file name trace.N.et, or 0).
	Rank int
	// File is the path it was read from.
	File string
	// Version is GlobalMetadata.version ("" in traces that predate it);
	// Schema is the host-trace schema its metadata names ("schema" attr).
	Version, Schema string
	Nodes           []Node
}

// Group is a process group.
type Group struct {
	// Name is the group's name (pg_name).
	Name string `json:"name"`
	// Ranks are the group's ranks; nil when the trace says "every rank"
	// (an empty rank list with group_size).
	Ranks []int `json:"ranks,omitempty"`
	// Size is the number of ranks.
	Size int `json:"size"`
	// Backend is the communication backend ("cuda:nccl").
	Backend string `json:"backend,omitempty"`
	// ID is the backend id PyTorch records collectives with (0: none).
	ID int64 `json:"-"`
}

// members lists g's ranks, 0..Size-1 when the trace says every rank.
func (g *Group) members() []int {
	if g.Ranks != nil {
		return g.Ranks
	}
	r := make([]int, g.Size)
	for i := range r {
		r[i] = i
	}
	return r
}

// Trace is a set of rank traces with their process groups.
type Trace struct {
	// Format is "chakra" or "pytorch".
	Format string
	// Name names the trace (the file or pattern).
	Name  string
	Ranks []*Rank
	// Groups by name.
	Groups map[string]*Group
	// warn collects warnings (an error under strict).
	warn *warner
}

// warner collects warnings, merging repeats of one kind into a count.
type warner struct {
	strict bool
	file   string
	order  []string
	counts map[string]int
	first  map[string]string
}

func newWarner(file string, strict bool) *warner {
	return &warner{strict: strict, file: file, counts: map[string]int{}, first: map[string]string{}}
}

// add records a warning of kind key (what cannot be used) at where; under
// strict it returns the error instead.
func (w *warner) add(key, where string) error {
	if w.strict {
		return fmt.Errorf("%w: %s: %s at %s", ErrStrict, w.file, key, where)
	}
	if _, ok := w.counts[key]; !ok {
		w.order = append(w.order, key)
		w.first[key] = where
	}
	w.counts[key]++
	return nil
}

// list renders the warnings, one per kind, with a count and the first place.
func (w *warner) list() []string {
	out := make([]string, 0, len(w.order))
	for _, k := range w.order {
		if n := w.counts[k]; n > 1 {
			out = append(out, fmt.Sprintf("%s: %s (%d times, first at %s)", w.file, k, n, w.first[k]))
		} else {
			out = append(out, fmt.Sprintf("%s: %s (at %s)", w.file, k, w.first[k]))
		}
	}
	return out
}

// groupNames lists the trace's group names, sorted, for messages.
func (t *Trace) groupNames() string {
	var n []string
	for k := range t.Groups {
		n = append(n, fmt.Sprintf("%q", k))
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}
