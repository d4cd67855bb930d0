package placers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"placesim/devices"
	"placesim/engine"
	"placesim/internal/suggest"
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

// Options are a placer's settings as key=value text (from --opt flags or
// scenario files), before the registry decodes them into the placer's
// typed Args (Decode).
type Options map[string]string

// Entry is a registered placer with a one-line description and the
// declaration of its options; Define makes one from the placer's typed
// factory.
type Entry struct {
	Name        string
	Description string
	// Options declares every option the placer reads (from its Args'
	// Declare), sorted by name; any other key is refused.
	Options []Option
	// check decodes option text into the placer's Args and validates it;
	// make does the same and calls the factory.
	check func(Options) error
	make  Factory
}

// New decodes opts into the placer's Args once (every key declared, every
// value in range, defaults for the rest, the Args' Validate) and makes the
// placer from them. A key may be qualified by the placer's name.
func (e Entry) New(opts Options) (Placer, error) {
	if e.make == nil {
		return nil, fmt.Errorf("placer %q has no factory: make its entry with Define", e.Name)
	}
	return e.make(opts)
}

// Check decodes opts as New does, without making the placer.
func (e Entry) Check(opts Options) error {
	if e.check == nil {
		return fmt.Errorf("placer %q has no factory: make its entry with Define", e.Name)
	}
	return e.check(opts)
}

// Option returns the declaration of the entry's option name.
func (e Entry) Option(name string) (Option, bool) {
	for _, o := range e.Options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

// Registry maps names to factories.
type Registry struct{ entries map[string]Entry }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: map[string]Entry{}} }

// Add registers e; a duplicate name or a bad declaration is an error.
func (r *Registry) Add(e Entry) error {
	if e.Name == "" || e.make == nil || e.check == nil || strings.ContainsAny(e.Name, ".=, ") {
		return fmt.Errorf("register placer %q: empty name, a name with one of . = , or a space, or no factory (make the entry with Define)", e.Name)
	}
	if _, dup := r.entries[e.Name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicate, e.Name)
	}
	if err := validateDecls(e.Name, e.Options); err != nil {
		return err
	}
	e.Options = append([]Option(nil), e.Options...)
	sort.Slice(e.Options, func(i, j int) bool { return e.Options[i].Name < e.Options[j].Name })
	r.entries[e.Name] = e
	return nil
}

// AddAll registers each of es in turn (Add), stopping at the first
// error: a family's Register lists its entries and adds them with it.
func (r *Registry) AddAll(es ...Entry) error {
	for _, e := range es {
		if err := r.Add(e); err != nil {
			return err
		}
	}
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

// Entry returns the named entry.
func (r *Registry) Entry(name string) (Entry, error) {
	e, ok := r.entries[name]
	if !ok {
		if s := suggest.Closest(name, r.Names()); s != "" {
			return Entry{}, fmt.Errorf("%w %q; did you mean %s? (valid: %s)", ErrUnknownPlacer, name, s, strings.Join(r.Names(), ", "))
		}
		return Entry{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownPlacer, name, strings.Join(r.Names(), ", "))
	}
	return e, nil
}

// LocalOptions lists the options of the named placer whose values name a
// local resource (a program to run, a directory to write, a file to read;
// see Resource), sorted; nil for an unknown placer. A caller that takes
// placer options from a data file someone else wrote (a scenario, a
// results file) refuses these keys there: such a file must never choose a
// program to run or a place to write.
func (r *Registry) LocalOptions(name string) []string {
	var out []string
	for _, o := range r.entries[name].Options {
		if o.Local() {
			out = append(out, o.Name)
		}
	}
	return out
}

// New makes the named placer with opts, decoded once into its typed Args
// (Entry.New). Every key must be declared by the placer (a key may be
// qualified by the placer's name, as in m-etf.coarsen) and every value
// valid: an unknown key is an error that lists the valid keys and suggests
// the nearest, a bad value one that names the option, the value and the
// valid range. The default of each declared option not given is the
// Args' own.
func (r *Registry) New(name string, opts Options) (Placer, error) {
	e, err := r.Entry(name)
	if err != nil {
		return nil, err
	}
	p, err := e.New(opts)
	if err != nil {
		return nil, fmt.Errorf("placer %s: %w", name, err)
	}
	return p, nil
}

// Resolve distributes option pairs over the placers named: a key
// qualified by a placer's name (m-etf.coarsen=true) goes to that placer
// alone, which must be among names and declare it; an unqualified key
// (coarsen=true) goes to every placer among names that declares it, and is
// an error when none does. A qualified key wins over an unqualified one.
// Each returned set holds only keys its placer declares, with valid
// values; defaults are left to New.
func (r *Registry) Resolve(names []string, opts Options) (map[string]Options, error) {
	out := map[string]Options{}
	entries := make([]Entry, len(names))
	for i, n := range names {
		e, err := r.Entry(n)
		if err != nil {
			return nil, err
		}
		entries[i] = e
		out[n] = Options{}
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	qualified := map[string]bool{} // placer + "." + key given qualified
	for _, k := range keys {
		p, key, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		e, err := r.Entry(p)
		if err != nil {
			return nil, fmt.Errorf("option %q: %w", k, err)
		}
		if _, in := out[p]; !in {
			return nil, fmt.Errorf("%w: option %q is for placer %s, which is not among the placers run (%s)", ErrBadOption, k, p, strings.Join(names, ", "))
		}
		o, ok := e.Option(key)
		if !ok {
			return nil, unknownKey(key, optionNames(e.Options), p)
		}
		if err := o.Check(opts[k]); err != nil {
			return nil, fmt.Errorf("placer %s: %w", p, err)
		}
		out[p][key] = opts[k]
		qualified[k] = true
	}
	for _, k := range keys {
		if strings.Contains(k, ".") {
			continue
		}
		used := false
		for _, e := range entries {
			o, ok := e.Option(k)
			if !ok {
				continue
			}
			used = true
			if qualified[e.Name+"."+k] {
				continue
			}
			if err := o.Check(opts[k]); err != nil {
				return nil, fmt.Errorf("placer %s: %w", e.Name, err)
			}
			out[e.Name][k] = opts[k]
		}
		if !used {
			var all []string
			for _, e := range entries {
				for _, o := range e.Options {
					if !contains(all, o.Name) {
						all = append(all, o.Name)
					}
				}
			}
			sort.Strings(all)
			return nil, unknownKey(k, all, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// NewPlan returns a plan with every op on device 0 for graph g.
func NewPlan(g *workloads.Graph) *engine.Plan { return &engine.Plan{Device: make([]int, len(g.Ops))} }
