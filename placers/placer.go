package placers

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"placesim/devices"
	"placesim/engine"
	"placesim/workloads"
)

// Placer decides where (and, optionally, in what order) ops run.
type Placer interface {
	// Name is the registered name.
	Name() string
	// Place returns a plan for req. It must honour ctx's cancellation on
	// long searches and never panic on bad input.
	Place(ctx context.Context, req *Request) (*engine.Plan, error)
}

// Request is a placement problem.
type Request struct {
	Graph   *workloads.Graph
	Cluster *devices.Cluster
	// Estimates are the costs the placer may use (with profiling error).
	Estimates *devices.Estimates
	// Seed drives any randomness.
	Seed uint64
}

// Options are a placer's settings as key=value pairs (from --opt flags or
// scenario files). Accessors report malformed values as errors.
type Options map[string]string

// String returns option key, or def when absent.
func (o Options) String(key, def string) string {
	if v, ok := o[key]; ok {
		return v
	}
	return def
}

// Int returns option key as an integer within [lo, hi], or def when absent.
func (o Options) Int(key string, def, lo, hi int) (int, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s=%q (valid range: integer in [%d, %d])", ErrBadOption, key, v, lo, hi)
	}
	return n, nil
}

// Float returns option key as a number within [lo, hi], or def when absent.
func (o Options) Float(key string, def, lo, hi float64) (float64, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < lo || f > hi {
		return 0, fmt.Errorf("%w: %s=%q (valid range: number in [%g, %g])", ErrBadOption, key, v, lo, hi)
	}
	return f, nil
}

// Factory makes a placer from its options.
type Factory func(opts Options) (Placer, error)

// Entry is a registered placer with a one-line description.
type Entry struct {
	Name        string
	Description string
	New         Factory
}

// Registry maps names to factories.
type Registry struct{ entries map[string]Entry }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[string]Entry{}} }

// Register adds a placer; a duplicate name is an error.
func (r *Registry) Register(name, description string, f Factory) error {
	if name == "" || f == nil {
		return fmt.Errorf("register placer %q: empty name or nil factory", name)
	}
	if _, dup := r.entries[name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicate, name)
	}
	r.entries[name] = Entry{Name: name, Description: description, New: f}
	return nil
}

// Merge adds every entry of other; any duplicate is an error and nothing
// is added.
func (r *Registry) Merge(other *Registry) error {
	for n := range other.entries {
		if _, dup := r.entries[n]; dup {
			return fmt.Errorf("%w: %q", ErrDuplicate, n)
		}
	}
	for n, e := range other.entries {
		r.entries[n] = e
	}
	return nil
}

// Names lists the registered names, sorted.
func (r *Registry) Names() []string {
	n := make([]string, 0, len(r.entries))
	for k := range r.entries {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Entries lists the registered entries sorted by name.
func (r *Registry) Entries() []Entry {
	var es []Entry
	for _, n := range r.Names() {
		es = append(es, r.entries[n])
	}
	return es
}

// New makes the named placer with opts.
func (r *Registry) New(name string, opts Options) (Placer, error) {
	e, ok := r.entries[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPlacer, name, strings.Join(r.Names(), ", "))
	}
	p, err := e.New(opts)
	if err != nil {
		return nil, fmt.Errorf("placer %s: %w", name, err)
	}
	return p, nil
}

// NewPlan returns a plan with every op on device 0 for graph g.
func NewPlan(g *workloads.Graph) *engine.Plan { return &engine.Plan{Device: make([]int, len(g.Ops))} }
