package cli

import (
	"io"
	"os"
	"time"

	"placesim/placers"
	"placesim/placers/builtin"
)

// Factory holds what every command needs from its surroundings, so that a
// command built with NewCmdX(f, runF) runs in a test without a process:
// output streams, the placer registry and the environment (the pattern of
// the GitHub CLI's cmdutil.Factory).
type Factory struct {
	// Out and ErrOut are standard output and standard error.
	Out, ErrOut io.Writer
	// Registry returns the placers a command may run.
	Registry func() (*placers.Registry, error)
	// Getenv reads the environment of the person running placesim (see
	// the trust boundary in trust.go).
	Getenv func(string) string
	// ProgressEvery is how often a long command prints a progress line
	// on ErrOut when it is not a terminal (0: every 5 s).
	ProgressEvery time.Duration
	// LongRun is how long a run goes before the progress names it as
	// still running (0: a minute).
	LongRun time.Duration
}

// NewFactory returns the factory of the real program: the built-in
// placers and the process environment.
func NewFactory(out, errOut io.Writer) *Factory {
	return &Factory{Out: out, ErrOut: errOut, Registry: builtin.NewRegistry, Getenv: os.Getenv}
}
