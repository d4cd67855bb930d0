package cli_test

import (
	"bytes"
	"context"
	"testing"

	"placesim/cmd/placesim/cli"
	"placesim/placers/builtin"
)

func testFactory() (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &cli.Factory{Out: &out, ErrOut: &errb, Registry: builtin.NewRegistry, Getenv: func(string) string { return "" }}, &out, &errb
}

// TestNewCmdRunF checks that a command hands its parsed flags to runF
// without doing any work itself.
func TestNewCmdRunF(t *testing.T) {
	f, _, _ := testFactory()
	var got *cli.CompareOptions
	cmd := cli.NewCmdCompare(f, func(o *cli.CompareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-w", "zoo:none-such", "--placers", "a,b", "--out", "DIR", "--jobs", "3"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Placers != "a,b" || got.OutDir != "DIR" || got.Jobs != 3 || got.Ctx == nil {
		t.Fatalf("options %+v", got)
	}
}

// TestCancelledExit130 checks that a command run under a cancelled
// context exits 130 and prints nothing on stdout.
func TestCancelledExit130(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "-w", "zoo:mlp", "-p", "round-robin"},
		{"compare", "-w", "zoo:mlp", "--placers", "single,round-robin"},
		{"place", "-w", "zoo:mlp", "-c", "4xV100-pcie", "-p", "round-robin"},
		{"stats", "zoo:mlp"},
	} {
		t.Run(args[0], func(t *testing.T) {
			f, out, errb := testFactory()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if code := cli.MainContext(ctx, f, args); code != cli.ExitInterrupted {
				t.Fatalf("exit %d, want %d; stderr %s", code, cli.ExitInterrupted, errb)
			}
			if args[0] != "stats" && out.Len() != 0 {
				t.Fatalf("an interrupted %s printed %q", args[0], out)
			}
		})
	}
}
