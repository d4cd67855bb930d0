package etdef_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"placesim/internal/sharedtest"
	"placesim/workloads/chakra/etdef"
)

// TestGeneratedMatchesSharedSchema compiles ../shared/traces/chakra/
// et_def.proto with protoc and checks that the committed generated code
// describes the same schema (messages, fields, numbers, types, enums), so
// that a changed schema cannot go unnoticed. protoc comes from Debian's
// protobuf-compiler (make deps); without it the test is skipped, except
// under CI.
func TestGeneratedMatchesSharedSchema(t *testing.T) {
	proto3 := sharedtest.Path(t, "traces", "chakra", "et_def.proto")
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("protoc missing under CI (make deps installs protobuf-compiler)")
		}
		t.Skip("protoc not installed (make deps installs protobuf-compiler)")
	}
	out := filepath.Join(t.TempDir(), "et_def.pb")
	cmd := exec.Command(protoc, "-I", filepath.Dir(proto3), "--descriptor_set_out="+out, filepath.Base(proto3))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	if len(set.File) != 1 {
		t.Fatalf("%d files in the descriptor set", len(set.File))
	}
	want := set.File[0]
	got := protodesc.ToFileDescriptorProto(etdef.File_et_def_proto)
	want.Options, got.Options = nil, nil
	if !proto.Equal(got, want) {
		t.Fatalf("generated code differs from %s: regenerate with go generate ./workloads/chakra/etdef", proto3)
	}
	// and the check can fail: a renamed field is a difference
	got.MessageType[0].Field[0].Name = proto.String("renamed")
	if proto.Equal(got, want) {
		t.Fatal("a renamed field compares equal")
	}
}
