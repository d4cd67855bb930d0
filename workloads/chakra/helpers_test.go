package chakra_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	"placesim/internal/sharedtest"
	"placesim/workloads/chakra/etdef"
)

// stream encodes a GlobalMetadata and nodes as a Chakra ET, with the
// protobuf module's own length-delimited writer.
func stream(t testing.TB, meta *etdef.GlobalMetadata, nodes ...*etdef.Node) []byte {
	t.Helper()
	var buf bytes.Buffer
	if meta == nil {
		meta = &etdef.GlobalMetadata{Version: "0.0.4"}
	}
	msgs := []proto.Message{meta}
	for _, n := range nodes {
		msgs = append(msgs, n)
	}
	for _, m := range msgs {
		if _, err := protodelim.MarshalTo(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// comp is a compute node with a duration and data dependencies.
func comp(id, us uint64, deps ...uint64) *etdef.Node {
	return &etdef.Node{Id: id, Name: "k", Type: etdef.NodeType_COMP_NODE, DurationMicros: us, DataDeps: deps,
		Attr: []*etdef.AttributeProto{{Name: "is_cpu_op", Value: &etdef.AttributeProto_BoolVal{BoolVal: false}}}}
}

// sharedET returns ../shared/traces/chakra/<name>.
func sharedET(t testing.TB, name string) string {
	t.Helper()
	return sharedtest.Path(t, "traces", "chakra", name)
}

// decodeAll decodes a Chakra ET with protodelim (not the package's
// reader): the metadata, the nodes and each message's byte offset.
func decodeAll(t testing.TB, data []byte) (*etdef.GlobalMetadata, []*etdef.Node, []int) {
	t.Helper()
	r := &countingReader{r: bufio.NewReader(bytes.NewReader(data))}
	meta := &etdef.GlobalMetadata{}
	if err := protodelim.UnmarshalFrom(r, meta); err != nil {
		t.Fatal(err)
	}
	var nodes []*etdef.Node
	var offs []int
	for {
		off := r.n
		n := &etdef.Node{}
		err := protodelim.UnmarshalFrom(r, n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("message at byte offset %d: %v", off, err)
		}
		nodes = append(nodes, n)
		offs = append(offs, off)
	}
	return meta, nodes, offs
}

// countingReader counts the bytes read.
type countingReader struct {
	r *bufio.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func readShared(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(sharedET(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
