package chakra_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"placesim/workloads/chakra"
	"placesim/workloads/chakra/etdef"
)

// secondsTol compares sums of microsecond durations read two ways.
const secondsTol = 1e-9

// TestChakraSharedTrace reads the real trace of rank 0 and checks its
// counts and its sum of compute durations against a decoding with the
// protobuf module's own length-delimited reader.
func TestChakraSharedTrace(t *testing.T) {
	data := readShared(t, "chakra.0.et")
	_, nodes, _ := decodeAll(t, data)
	var comp, coll int
	var us uint64
	for _, n := range nodes {
		switch n.GetType() {
		case etdef.NodeType_COMP_NODE:
			comp++
			us += n.GetDurationMicros()
		case etdef.NodeType_COMM_COLL_NODE:
			coll++
		}
	}
	g, s, err := chakra.Load(sharedET(t, "chakra.0.et"), chakra.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Nodes != len(nodes) || s.Compute != comp || s.Collective != coll {
		t.Fatalf("summary nodes %d (compute %d, collective %d), protodelim %d (%d, %d)", s.Nodes, s.Compute, s.Collective, len(nodes), comp, coll)
	}
	if !scalar.EqualWithinAbsOrRel(s.ComputeSeconds, float64(us)*1e-6, secondsTol, secondsTol) {
		t.Fatalf("compute seconds %g, protodelim sum %d µs", s.ComputeSeconds, us)
	}
	if len(g.Ops) != len(nodes) {
		t.Fatalf("%d ops for %d nodes (every node is played)", len(g.Ops), len(nodes))
	}
	if len(s.Warnings) != 0 {
		t.Fatalf("warnings on the real trace: %q", s.Warnings)
	}
	if s.LongestChain <= 0 {
		t.Fatalf("longest chain %g", s.LongestChain)
	}
}

// TestTruncatedNamesOffset cuts the real trace inside several messages:
// the error names the byte offset of the message that is cut.
func TestTruncatedNamesOffset(t *testing.T) {
	data := readShared(t, "chakra.0.et")
	_, _, offs := decodeAll(t, data)
	for _, k := range []int{0, 1, 100, len(offs) / 2, len(offs) - 1} {
		off := offs[k]
		for _, cut := range []int{off + 1, off + 5} {
			if k == len(offs)-1 && cut >= len(data) {
				continue
			}
			_, err := chakra.DecodeTrace(data[:cut], "cut.et", chakra.Options{})
			if !errors.Is(err, chakra.ErrFormat) {
				t.Fatalf("cut at %d: err %v, want ErrFormat", cut, err)
			}
			if want := fmt.Sprintf("byte offset %d", off); !strings.Contains(err.Error(), want) {
				t.Fatalf("cut at %d inside the message at %d: %v (want %q)", cut, off, err, want)
			}
		}
	}
}

func TestBadStreams(t *testing.T) {
	good := stream(t, nil, comp(1, 5), comp(2, 7, 1))
	tenMillion := bytes.Repeat([]byte{2, 8, 1}, 10_000_000) // 10^7 nodes {id: 1}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty stream"},
		{"length past end", append(append([]byte{}, good...), 0x7f, 1, 2), "declares 127 bytes but only 2 remain"},
		{"varint too long", append(append([]byte{}, good...), bytes.Repeat([]byte{0xff}, 11)...), "bad length prefix"},
		{"garbage message", append(append([]byte{}, good...), 3, 0xff, 0xff, 0xff), "Node message at byte offset"},
		{"zero length then bytes", append(append([]byte{}, good...), 0, 1, 2), "zero-length message"},
		{"cycle", stream(t, nil, comp(1, 5, 3), comp(2, 7, 1), comp(3, 1, 2)), "dependency cycle among nodes"},
		{"self dependency", stream(t, nil, comp(1, 5, 1)), "dependency cycle among nodes 1 -> 1"},
		{"duplicate id", stream(t, nil, comp(1, 5), comp(1, 7)), "node id 1 at byte offset"},
		{"10^7 nodes", append(stream(t, nil), tenMillion...), "more than 4000000 nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := chakra.DecodeTrace(tc.data, "bad.et", chakra.Options{})
			if err == nil {
				_, _, err = chakra.Build(tr, chakra.Options{})
			}
			if !errors.Is(err, chakra.ErrFormat) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.et") {
				t.Fatalf("err %v, want ErrFormat naming bad.et and %q", err, tc.want)
			}
		})
	}
}

// TestUnknownIsWarningOrStrictError: an unknown attribute, node type or
// schema version is a warning that names it, an error under strict.
func TestUnknownIsWarningOrStrictError(t *testing.T) {
	odd := comp(2, 3, 1)
	odd.Attr = append(odd.Attr, &etdef.AttributeProto{Name: "frobnication", Value: &etdef.AttributeProto_Int64Val{Int64Val: 1}})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"attribute", stream(t, nil, comp(1, 5), odd), `unknown attribute "frobnication"`},
		{"node type", stream(t, nil, comp(1, 5), &etdef.Node{Id: 2, Type: etdef.NodeType(42), DurationMicros: 4}), "unknown node type"},
		{"version", stream(t, &etdef.GlobalMetadata{Version: "9.9.9"}, comp(1, 5)), `unknown schema version "9.9.9"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := chakra.DecodeTrace(tc.data, "odd.et", chakra.Options{})
			if err != nil {
				t.Fatal(err)
			}
			g, s, err := chakra.Build(tr, chakra.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tc.want) || len(g.Warnings) != 1 {
				t.Fatalf("warnings %q, want one naming %q", s.Warnings, tc.want)
			}
			_, err = chakra.DecodeTrace(tc.data, "odd.et", chakra.Options{Strict: true})
			if !errors.Is(err, chakra.ErrStrict) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("strict: err %v, want ErrStrict naming %q", err, tc.want)
			}
		})
	}
}

// TestNoDurationCounted: a node without a duration is counted and left to
// the cost model (no measured time).
func TestNoDurationCounted(t *testing.T) {
	tr, err := chakra.DecodeTrace(stream(t, nil, comp(1, 5), comp(2, 0, 1), comp(3, 0, 1)), "x.et", chakra.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, s, err := chakra.Build(tr, chakra.Options{Device: "H100-80GB"})
	if err != nil {
		t.Fatal(err)
	}
	if s.NoDuration != 2 {
		t.Fatalf("no-duration count %d, want 2", s.NoDuration)
	}
	if !scalar.EqualWithinAbsOrRel(g.Ops[0].Measured["H100-80GB"], 5e-6, secondsTol, secondsTol) || g.Ops[1].Measured != nil {
		t.Fatalf("measured %v and %v", g.Ops[0].Measured, g.Ops[1].Measured)
	}
}
