// Package cli builds placesim's cobra command tree: flag parsing, progress
// bars, output and exit codes. Everything else lives in the library.
//
// Each command follows the GitHub CLI's layout: NewCmdX(f, runF) builds
// the command; its RunE only copies the parsed flags into an XOptions and
// calls runF (a test's function) or xRun, which builds a request, hands it
// to package study and renders what comes back.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"placesim/internal/scratch"
	"placesim/study"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitOOM   = 2
	// ExitInterrupted is the exit code after Ctrl-C (SIGINT) or SIGTERM:
	// 128 + SIGINT, as a shell reports it.
	ExitInterrupted = 130
)

// exitError carries a non-default exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Main runs the CLI with args and returns the process exit code. SIGINT
// and SIGTERM cancel the root context: every command then stops within a
// second, leaves no partial file and Main returns ExitInterrupted.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// names from data files reach the terminal escaped (escape.go)
	out := newEscapeWriter(stdout)
	// the scratch directories' tracker belongs to the process, not to
	// the command's goroutine: after Ctrl-C runInterruptible may return
	// while that goroutine still runs a placer, and Close then both
	// removes what it made and refuses what it would make next, before
	// RunProcess removes the private TMPDIR
	var tmp scratch.Tracker
	ctx = scratch.WithTracker(ctx, &tmp)
	code := runInterruptible(ctx, stderr, func() int { return MainContext(ctx, NewFactory(out, stderr), args) })
	for _, dir := range tmp.Close(time.Second) {
		fmt.Fprintf(stderr, "placesim: could not remove the scratch directory %s\n", dir)
	}
	return code
}

// MainContext runs the CLI under ctx with f's streams and returns the exit
// code: ExitInterrupted when ctx was cancelled. A panic (always a bug) is
// reported as an internal error with its stack, exit 1.
func MainContext(ctx context.Context, f *Factory, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(f.ErrOut, "placesim: internal error (a bug, please report): %v\n%s", r, debug.Stack())
			code = ExitError
		}
	}()
	// Scratch directories of external tools (CBC, METIS, Scotch) are
	// removed on every exit path: a placer abandoned at a timeout or by
	// Ctrl-C may still hold one when the command returns.
	// (Main's tracker when ctx carries one: Main closes it)
	if scratch.From(ctx) == nil {
		var tmp scratch.Tracker
		defer func() {
			for _, dir := range tmp.Close(time.Second) {
				fmt.Fprintf(f.ErrOut, "placesim: could not remove the scratch directory %s\n", dir)
			}
		}()
		ctx = scratch.WithTracker(ctx, &tmp)
	}
	if wantsVersion(args) {
		fmt.Fprintln(f.Out, "placesim", study.Version())
		return ExitOK
	}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(f.ErrOut, "placesim: interrupted")
		return ExitInterrupted
	}
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(f.ErrOut, "placesim:", EscapeTerminal(flagNamed(ee.err, commonFlagNames).Error()))
		}
		return ee.code
	}
	fmt.Fprintln(f.ErrOut, "placesim:", EscapeTerminal(flagNamed(err, commonFlagNames).Error()))
	return ExitError
}

// wantsVersion reports whether args ask for --version (on any command,
// before a "--"): it is answered before the command's own arguments are
// checked.
func wantsVersion(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--version" || a == "--version=true" {
			return true
		}
	}
	return false
}

// NewRoot builds the command tree writing to stdout and stderr.
func NewRoot(stdout, stderr io.Writer) *cobra.Command { return NewCmdRoot(NewFactory(stdout, stderr)) }

// NewCmdRoot builds the command tree on f.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "placesim",
		Short: "Discrete-event simulator of deep-learning training on multi-GPU clusters",
		Long: `placesim places a model's dataflow graph on a cluster of GPUs and CPUs with
one of many placement algorithms, then plays the training step event by
event: per-device compute streams, FCFS link queues, per-device memory with
out-of-memory detection. It reports step time, throughput and peak memory,
and compares placers side by side.

Workloads: zoo:NAME[?batch=N&granularity=op|layer&training=true] or a file.
Clusters: a preset name (placesim list clusters) or a YAML/JSON file.

Ctrl-C (SIGINT) or SIGTERM stops any command within a second, leaves no
partial file and exits 130.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().Bool("version", false, "print placesim's version and exit")
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	root.AddCommand(
		NewCmdSimulate(f, nil),
		NewCmdValidate(f, nil),
		NewCmdCompare(f, nil),
		NewCmdList(f, nil),
		NewCmdDescribe(f, nil),
		NewCmdRun(f, nil),
		NewCmdSweep(f, nil),
		NewCmdMerge(f, nil),
		NewCmdCheck(f, nil),
		NewCmdExport(f, nil),
		NewCmdModels(f, nil),
		NewCmdStats(f, nil),
		NewCmdPlace(f, nil),
		NewCmdTrain(f, nil),
		NewCmdSearch(f, nil),
		NewCmdCollective(f, nil),
		NewCmdReproduce(f, nil),
	)
	return root
}
