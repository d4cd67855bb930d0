package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"placesim/placers"
)

// defaultTimeout is place's and simulate's --timeout: as sweep's, the
// limit of one placement and its simulation.
const defaultTimeout = 10 * time.Minute

// registerTimeout adds --timeout to a command that places and simulates
// once (place, simulate), as compare, run and sweep have it.
func registerTimeout(cmd *cobra.Command, v *time.Duration) {
	cmd.Flags().DurationVar(v, "timeout", defaultTimeout, "time limit of the placement and its simulation, e.g. 90s; 0: none")
}

// withTimeout returns ctx limited to d (0: not limited) and its cancel
// function; a negative d is an error naming the flag.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, error) {
	if d < 0 {
		return ctx, func() {}, fmt.Errorf("--timeout %v is negative (valid: 0 for none, or a duration such as 90s)", d)
	}
	if d == 0 {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// timeoutError turns the error of a command run under withTimeout's
// context into one naming the limit when the limit (not the user's
// Ctrl-C, which the root reports) is what stopped it.
func timeoutError(ctx context.Context, d time.Duration, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("stopped after --timeout %v (placement and simulation did not finish; raise --timeout or use a faster placer): %w", d, err)
	}
	return err
}

// runWithin runs one placement or simulation of place, simulate or
// simulate --layout: run gets the placer registry and ctx limited to
// timeout (--timeout; 0: none), and a run the limit stopped is an error
// naming it (timeoutError).
func runWithin[T any](ctx context.Context, f *Factory, timeout time.Duration, run func(context.Context, *placers.Registry) (T, error)) (T, error) {
	var zero T
	reg, err := f.Registry()
	if err != nil {
		return zero, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel, err := withTimeout(ctx, timeout)
	if err != nil {
		return zero, err
	}
	defer cancel()
	out, err := run(ctx, reg)
	return out, timeoutError(ctx, timeout, err)
}

// interruptGrace is how long Main waits, after SIGINT or SIGTERM, for the
// command to stop by itself (and remove its partial files) before it
// returns ExitInterrupted regardless: every command checks its context
// between steps, but one step (decoding a 100 MB results file, drawing a
// chart) may take longer, and Ctrl-C must end the process within a second.
const interruptGrace = 500 * time.Millisecond

// runInterruptible returns run's exit code, or ExitInterrupted once ctx
// has been cancelled for interruptGrace while run still works (the
// process then exits; its atomic writes leave at most hidden temporary
// files, which the next writer removes).
func runInterruptible(ctx context.Context, errOut io.Writer, run func() int) int {
	done := make(chan int, 1)
	go func() { done <- run() }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	select {
	case code := <-done:
		return code
	case <-time.After(interruptGrace):
		fmt.Fprintln(errOut, "placesim: interrupted")
		return ExitInterrupted
	}
}
