package mip

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"placesim/internal/scratch"
)

// Options tune a solve.
type Options struct {
	// TimeLimit bounds the solver's run (0: none, but see the context).
	TimeLimit time.Duration
	// RelGap stops the search once (incumbent - bound) / |incumbent| <=
	// RelGap (0: CBC's default).
	RelGap float64
	// NodeLimit stops the branch and bound after that many nodes (0:
	// none); unlike a time limit it stops a run at the same point every
	// time.
	NodeLimit int
	// Threads for CBC's branch and bound (0 or 1: one thread, which keeps
	// runs deterministic).
	Threads int
	// WarmStart, when set, holds a value per variable of a feasible (or
	// nearly feasible) solution given to CBC as its MIP start; CBC keeps
	// the integer values and re-solves the continuous ones.
	WarmStart []float64
	// Format of the model file (default MPS).
	Format Format
	// Binary is the solver's path or name (default "cbc", looked up on PATH).
	Binary string
	// Dir, when set, keeps the model, start, solution and log files there;
	// otherwise they go to a temporary directory removed afterwards.
	Dir string
}

// Status is how the solver ended.
type Status string

// Solver statuses.
const (
	// Optimal: proven optimal within the gap.
	Optimal Status = "optimal"
	// Stopped: stopped early (time limit, cancellation) with an incumbent.
	Stopped Status = "stopped"
)

// Solution is what CBC returned.
type Solution struct {
	Status Status
	// TimedOut is true when the solver stopped on its time or node limit
	// or on cancellation before proving optimality: Values is then its
	// best incumbent.
	TimedOut bool
	// Objective is the objective at Values (recomputed from them).
	Objective float64
	// Bound is the best proven bound on the objective (NaN if the log did
	// not report one); Gap = |Objective - Bound| / |Objective|.
	Bound, Gap float64
	// Values holds one value per variable of the model.
	Values []float64
	// WarmStarted is true when CBC accepted the MIP start as a solution.
	WarmStarted bool
	// Log is the solver's full output; Command is its command line.
	Log, Command string
	// Runtime is the solver's wall time.
	Runtime time.Duration
}

// Value returns the value of v in the solution.
func (s *Solution) Value(v Var) float64 { return s.Values[v] }

// LookPath returns the path of the cbc binary named by bin (default
// "cbc"), or an error wrapping ErrNoSolver.
func LookPath(bin string) (string, error) {
	if bin == "" {
		bin = "cbc"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("%w (looked for %q: %v)", ErrNoSolver, bin, err)
	}
	return p, nil
}

// Solve writes m, runs CBC on it and reads the solution. A solve that
// stops on the time limit or on ctx's cancellation (CBC is interrupted and
// reports its incumbent) returns the incumbent with TimedOut set, or an
// error wrapping ErrNoIncumbent when it had none. An infeasible model is an
// error wrapping ErrInfeasible. The returned Solution (also with an error
// from the solver's run) carries the log.
func Solve(ctx context.Context, m *Model, o Options) (*Solution, error) {
	if err := m.Err(); err != nil {
		return nil, err
	}
	bin, err := LookPath(o.Binary)
	if err != nil {
		return nil, err
	}
	if o.WarmStart != nil && len(o.WarmStart) != len(m.Vars) {
		return nil, fmt.Errorf("%w: warm start has %d values for %d variables", ErrModel, len(o.WarmStart), len(m.Vars))
	}
	if o.RelGap < 0 || math.IsNaN(o.RelGap) || o.TimeLimit < 0 {
		return nil, fmt.Errorf("%w: relative gap %g and time limit %v (valid: >= 0)", ErrModel, o.RelGap, o.TimeLimit)
	}
	if o.Format == "" {
		o.Format = MPS
	}
	dir := o.Dir
	if dir == "" {
		var remove func()
		if dir, remove, err = scratch.MkdirTemp(ctx, "placesim-mip-"); err != nil {
			return nil, err
		}
		defer remove()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	modelPath := filepath.Join(dir, "model."+string(o.Format))
	var buf bytes.Buffer
	if err := m.Write(&buf, o.Format); err != nil {
		return nil, err
	}
	if err := os.WriteFile(modelPath, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	cols, _ := m.names()
	args := []string{modelPath}
	if o.WarmStart != nil {
		startPath := filepath.Join(dir, "start.sol")
		if err := writeStart(startPath, cols, o.WarmStart); err != nil {
			return nil, err
		}
		args = append(args, "-mipstart", startPath)
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); o.TimeLimit == 0 || left < o.TimeLimit {
			o.TimeLimit = max(left, time.Second)
		}
	}
	if o.TimeLimit > 0 {
		// wall-clock seconds (CBC's default counts CPU time)
		args = append(args, "-timeMode", "elapsed", "-sec", strconv.FormatFloat(math.Max(o.TimeLimit.Seconds(), 0.01), 'f', 2, 64))
	}
	if o.RelGap > 0 {
		args = append(args, "-ratio", num(o.RelGap))
	}
	if o.NodeLimit > 0 {
		args = append(args, "-maxNodes", strconv.Itoa(o.NodeLimit))
	}
	threads := max(o.Threads, 1)
	solPath := filepath.Join(dir, "solution.txt")
	args = append(args, "-threads", strconv.Itoa(threads), "-solve", "-solu", solPath)
	// CBC checks its time limit only between phases, and can spend far
	// longer in the root LP of a large model: the limit is enforced from
	// here too, with a grace period, by interrupting it.
	runCtx := ctx
	if o.TimeLimit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.TimeLimit+o.TimeLimit/2+5*time.Second)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, bin, args...)
	dieWithParent(cmd)
	// On cancellation interrupt CBC, which then stops and writes its
	// incumbent, and kill it only if it does not exit soon after.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	sol := &Solution{Command: bin + " " + strings.Join(args, " "), Bound: math.NaN(), Gap: math.NaN()}
	start := time.Now()
	runErr := cmd.Run()
	sol.Runtime = time.Since(start)
	sol.Log = log.String()
	if o.Dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "cbc.log"), log.Bytes(), 0o644)
	}
	if mm := inputErrors.FindStringSubmatch(sol.Log); mm != nil {
		return sol, fmt.Errorf("%w: cbc could not read the model it was given (%s errors on input); log tail:\n%s", ErrModel, mm[1], tail(sol.Log, 20))
	}
	data, readErr := os.ReadFile(solPath)
	if readErr != nil {
		if runCtx.Err() != nil && ctx.Err() == nil {
			return sol, fmt.Errorf("%w: cbc overran its %v time limit and was stopped before it wrote a solution", ErrNoIncumbent, o.TimeLimit)
		}
		if ctx.Err() != nil {
			// the caller's deadline (a placer's time limit) or cancellation
			return sol, fmt.Errorf("%w: cbc was stopped by its caller (%v) after %v, before it wrote a solution", ErrNoIncumbent, context.Cause(ctx), sol.Runtime.Round(time.Second))
		}
		if runErr != nil {
			return sol, fmt.Errorf("cbc failed: %v; log tail:\n%s", runErr, tail(sol.Log, 20))
		}
		return sol, fmt.Errorf("cbc wrote no solution file: %v; log tail:\n%s", readErr, tail(sol.Log, 20))
	}
	if err := parseSolution(sol, data, m, cols); err != nil {
		return sol, err
	}
	parseLog(sol, m)
	if runCtx.Err() != nil && sol.Status == Optimal && strings.Contains(sol.Log, "Stopped") {
		sol.Status, sol.TimedOut = Stopped, true
	}
	return sol, nil
}

var inputErrors = regexp.MustCompile(`There were (\d+) errors on input`)

var statusLine = regexp.MustCompile(`^(.*?) - objective value (\S+)`)

// parseSolution reads CBC's solution file: a status line, then one line
// "index name value objcoef" per non-zero column.
func parseSolution(sol *Solution, data []byte, m *Model, cols []string) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	if !sc.Scan() {
		return fmt.Errorf("cbc solution file is empty; log tail:\n%s", tail(sol.Log, 20))
	}
	head := strings.TrimSpace(sc.Text())
	status := head
	if mm := statusLine.FindStringSubmatch(head); mm != nil {
		status = mm[1]
	}
	low := strings.ToLower(status)
	switch {
	case strings.HasPrefix(low, "optimal"):
		sol.Status = Optimal
	case strings.Contains(low, "infeasible"):
		return fmt.Errorf("%w (cbc: %s)", ErrInfeasible, head)
	case strings.Contains(low, "unbounded"):
		return fmt.Errorf("%w: MIP is unbounded (cbc: %s)", ErrModel, head)
	case strings.HasPrefix(low, "stopped"):
		sol.Status, sol.TimedOut = Stopped, true
	default:
		return fmt.Errorf("cbc ended with %q", head)
	}
	index := make(map[string]int, len(cols))
	for i, c := range cols {
		index[c] = i
	}
	sol.Values = make([]float64, len(m.Vars))
	for sc.Scan() {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "**"))
		if len(f) < 3 {
			continue
		}
		i, ok := index[f[1]]
		if !ok {
			continue // a row (printed with some printing options)
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return fmt.Errorf("cbc solution: column %s: bad value %q", f[1], f[2])
		}
		sol.Values[i] = v
	}
	if sol.Status == Stopped {
		noIncumbent := strings.Contains(sol.Log, "No feasible solution found") || strings.Contains(sol.Log, "No integer solution")
		if mm := statusLine.FindStringSubmatch(head); mm != nil {
			if obj, err := strconv.ParseFloat(mm[2], 64); err == nil && math.Abs(obj) >= 1e49 {
				noIncumbent = true
			}
		}
		if noIncumbent {
			return fmt.Errorf("%w (cbc: %s)", ErrNoIncumbent, head)
		}
	}
	sol.Objective = Value(m.Objective, sol.Values) + m.ObjConstant
	return nil
}

var (
	boundLine = regexp.MustCompile(`(?m)^Lower bound:\s+(\S+)`)
	gapLine   = regexp.MustCompile(`(?m)^Gap:\s+(\S+)`)
)

// parseLog reads the bound and gap CBC reports at the end, and whether the
// MIP start was used.
func parseLog(sol *Solution, m *Model) {
	sol.WarmStarted = strings.Contains(sol.Log, "MIPStart provided solution")
	if sol.Status == Optimal {
		sol.Bound, sol.Gap = sol.Objective, 0
	}
	if mm := boundLine.FindStringSubmatch(sol.Log); mm != nil {
		if b, err := strconv.ParseFloat(mm[1], 64); err == nil {
			// the file is a minimisation of the (negated, if maximising)
			// objective without its constant
			if m.Maximize {
				b = -b
			}
			sol.Bound = b + m.ObjConstant
		}
	}
	if mm := gapLine.FindStringSubmatch(sol.Log); mm != nil {
		if g, err := strconv.ParseFloat(mm[1], 64); err == nil {
			sol.Gap = g
		}
	}
	if !math.IsNaN(sol.Bound) && sol.Objective != 0 {
		sol.Gap = math.Abs(sol.Objective-sol.Bound) / math.Abs(sol.Objective)
	}
}

func writeStart(path string, cols []string, x []float64) error {
	var b bytes.Buffer
	b.WriteString("Stopped on time - objective value 0\n")
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: warm start value %g for %q", ErrModel, v, cols[i])
		}
		fmt.Fprintf(&b, "%d %s %s 0\n", i, cols[i], num(v))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// IsMissing reports whether err says the solver is not installed.
func IsMissing(err error) bool { return errors.Is(err, ErrNoSolver) }
