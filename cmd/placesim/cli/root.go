// Package cli builds placesim's cobra command tree: flag parsing, progress
// bars, output and exit codes. Everything else lives in the library.
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitOOM   = 2
)

// exitError carries a non-default exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs the CLI with args and returns the process exit code. A panic
// (always a bug) is reported as an internal error with its stack, exit 1.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "placesim: internal error (a bug, please report): %v\n%s", r, debug.Stack())
			code = ExitError
		}
	}()
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "placesim:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "placesim:", err)
	return ExitError
}

// NewRoot builds the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "placesim",
		Short: "Discrete-event simulator of deep-learning training on multi-GPU clusters",
		Long: `placesim places a model's dataflow graph on a cluster of GPUs and CPUs with
one of many placement algorithms, then plays the training step event by
event: per-device compute streams, FCFS link queues, per-device memory with
out-of-memory detection. It reports step time, throughput and peak memory,
and compares placers side by side.

Workloads: zoo:NAME[?batch=N&granularity=op|layer&training=true] or a file.
Clusters: a preset name (placesim list clusters) or a YAML/JSON file.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(
		newSimulateCmd(),
		newCompareCmd(),
		newListCmd(),
		newDescribeCmd(),
		newRunCmd(),
		newSweepCmd(),
		newMergeCmd(),
		newCheckCmd(),
		newExportCmd(),
		newModelsCmd(),
		newStatsCmd(),
		newPlaceCmd(),
	)
	return root
}
