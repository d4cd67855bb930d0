package zoo

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"placesim/internal/suggest"
	"placesim/workloads"
)

// ErrUnknownModel is returned for a model name the zoo does not have.
var ErrUnknownModel = errors.New("unknown zoo model")

// ErrUnknownParameter marks a zoo workload parameter its model does not
// read (zoo:mlp?layer=3).
var ErrUnknownParameter = errors.New("unknown parameter")

// Granularity of a generated graph.
type Granularity string

// Granularities.
const (
	Layer    Granularity = "layer"
	Operator Granularity = "op"
)

// Params are the common knobs of every model plus model-specific ones.
type Params struct {
	// Batch is the samples per step (0: the model's default).
	Batch int
	// Granularity is Layer or Operator (default Operator).
	Granularity Granularity
	// Training derives backward and update ops (default false).
	Training bool
	// Optimizer of a training step's update ops (default: the model's).
	Optimizer workloads.Optimizer
	// Gradients is the gradient memory model of a training step (default
	// persistent buffers).
	Gradients workloads.GradientMemory
	// Framework is the execution profile (framework=, see Frameworks;
	// default DefaultFramework).
	Framework string
	// Precision is the precision setting (precision=, default fp32).
	Precision workloads.Precision
	// prof is Framework's profile.
	prof profile
	// Extra holds model-specific parameters (layers=, hidden=, ...).
	Extra map[string]string
	// used records which Extra keys a model read, to refuse unknown ones.
	used map[string]bool
}

// lookup is the value of model-specific parameter key (ok false when
// not given), recording that the model reads key (unknown keys are
// refused).
func (p *Params) lookup(key string) (v string, ok bool) {
	if p.used == nil {
		p.used = map[string]bool{}
	}
	p.used[key] = true
	v, ok = p.Extra[key]
	return v, ok
}

// Int reads a model-specific integer parameter within [lo, hi].
func (p *Params) Int(key string, def, lo, hi int) (int, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("parameter %s=%q (valid range: integer in [%d, %d])", key, v, lo, hi)
	}
	return n, nil
}

// String reads a model-specific parameter that must be one of valid.
func (p *Params) String(key, def string, valid ...string) (string, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	for _, x := range valid {
		if v == x {
			return v, nil
		}
	}
	return "", fmt.Errorf("parameter %s=%q (valid: %s)", key, v, strings.Join(valid, ", "))
}

// Bool reads a model-specific true/false parameter.
func (p *Params) Bool(key string, def bool) (bool, error) {
	v, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("parameter %s=%q (valid: true, false)", key, v)
	}
	return b, nil
}

// Model is a zoo entry.
type Model struct {
	// Name is the registered name (zoo:NAME).
	Name string
	// Description names the architecture and its parameters.
	Description string
	// Source is the paper the architecture follows.
	Source string
	// DefaultBatch is used when Params.Batch is 0.
	DefaultBatch int
	// DefaultOptimizer is the optimizer of a training step when none is
	// given (the one the model is usually trained with).
	DefaultOptimizer workloads.Optimizer
	// build generates the forward pass at operator granularity, with the
	// ops a training step adds to it when p.Training (training is derived
	// by the zoo).
	build func(p *Params) (*net, error)
}

// Models lists the zoo, sorted by name.
func Models() []Model {
	ms := append([]Model(nil), models()...)
	sort.Slice(ms, func(i, j int) bool { return ms[i].Name < ms[j].Name })
	return ms
}

// Names lists the model names.
func Names() []string {
	var n []string
	for _, m := range Models() {
		n = append(n, m.Name)
	}
	return n
}

// Build generates a graph from a spec "NAME[?key=value&...]" (a leading
// "zoo:" is accepted). Common keys: batch, granularity (layer|op),
// training (true|false), framework (the fusion profile, see Frameworks;
// default pytorch, the name then ends in "&framework=pytorch"), precision
// (fp32|tf32|fp16|bf16|amp-fp16|amp-bf16, default fp32) and, with
// training=true, optimizer
// (sgd|momentum|adam, default the model's) and grads (persistent|transient
// gradient buffers, default persistent); any other key is model-specific,
// and an unknown key is an error. The same spec always gives the same graph.
func Build(spec string) (*workloads.Graph, error) {
	spec = strings.TrimPrefix(spec, "zoo:")
	name, query, _ := strings.Cut(spec, "?")
	var m *Model
	for _, x := range models() {
		if x.Name == name {
			m = &x
			break
		}
	}
	if m == nil {
		return nil, fmt.Errorf("%w %q (valid: %s)%s", ErrUnknownModel, name, strings.Join(Names(), ", "), suggest.DidYouMean(name, Names()))
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("zoo:%s: malformed parameters %q: %w", name, query, err)
	}
	p := &Params{Granularity: Operator, Extra: map[string]string{}}
	for k, v := range vals {
		if len(v) != 1 {
			return nil, fmt.Errorf("zoo:%s: parameter %s given %d times", name, k, len(v))
		}
		switch k {
		case "batch":
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 1 || n > 1<<20 {
				return nil, fmt.Errorf("zoo:%s: parameter batch=%q (valid range: integer in [1, %d])", name, v[0], 1<<20)
			}
			p.Batch = n
		case "granularity":
			switch Granularity(v[0]) {
			case Layer, Operator:
				p.Granularity = Granularity(v[0])
			default:
				return nil, fmt.Errorf("zoo:%s: parameter granularity=%q (valid: layer, op)", name, v[0])
			}
		case "training":
			b, err := strconv.ParseBool(v[0])
			if err != nil {
				return nil, fmt.Errorf("zoo:%s: parameter training=%q (valid: true, false)", name, v[0])
			}
			p.Training = b
		case "optimizer":
			p.Optimizer = workloads.Optimizer(v[0])
			if !slices.Contains(workloads.Optimizers(), p.Optimizer) {
				return nil, fmt.Errorf("zoo:%s: parameter optimizer=%q (valid: sgd, momentum, adam)", name, v[0])
			}
		case "framework":
			if _, err := profileFor(v[0]); err != nil {
				return nil, fmt.Errorf("zoo:%s: %w", name, err)
			}
			p.Framework = v[0]
		case "precision":
			pr, err := workloads.ParsePrecision(v[0])
			if err != nil {
				return nil, fmt.Errorf("zoo:%s: parameter %w", name, err)
			}
			p.Precision = pr
		case "grads":
			p.Gradients = workloads.GradientMemory(v[0])
			if p.Gradients != workloads.PersistentGradients && p.Gradients != workloads.TransientGradients {
				return nil, fmt.Errorf("zoo:%s: parameter grads=%q (valid: persistent, transient)", name, v[0])
			}
		default:
			p.Extra[k] = v[0]
		}
	}
	if p.Batch == 0 {
		p.Batch = m.DefaultBatch
	}
	if !p.Training && (p.Optimizer != "" || p.Gradients != "") {
		return nil, fmt.Errorf("zoo:%s: parameters optimizer and grads need training=true", name)
	}
	if p.Optimizer == "" {
		p.Optimizer = m.DefaultOptimizer
	}
	explicitFramework := p.Framework != ""
	if !explicitFramework {
		p.Framework = DefaultFramework
	}
	if p.prof, err = profileFor(p.Framework); err != nil {
		return nil, fmt.Errorf("zoo:%s: %w", name, err)
	}
	if p.Precision == "" {
		p.Precision = workloads.PrecisionFP32
	}
	n, err := m.build(p)
	if err == nil {
		err = n.err
	}
	if err != nil {
		return nil, fmt.Errorf("zoo:%s: %w", name, err)
	}
	for k := range p.Extra {
		if !p.used[k] {
			valid := []string{"batch", "granularity", "training", "optimizer", "framework", "precision", "grads"}
			for u := range p.used {
				valid = append(valid, u)
			}
			sort.Strings(valid[7:])
			return nil, fmt.Errorf("zoo:%s: %w %q (valid: %s)%s", name, ErrUnknownParameter, k, strings.Join(valid, ", "), suggest.DidYouMean(k, valid))
		}
	}
	n.g.Precision, n.g.Framework = p.Precision, p.Framework
	lg := n.opGraph()
	if p.Granularity == Layer {
		lg = n.coarsen()
	}
	g := lg.g
	if p.Training {
		g, err = workloads.DeriveTrainingWith(g, workloads.TrainingOptions{Optimizer: p.Optimizer,
			Gradients: p.Gradients, ParamTensors: lg.tensors, State: lg.state, Precision: p.Precision})
		if err != nil {
			return nil, fmt.Errorf("zoo:%s: %w", name, err)
		}
		if p.Granularity == Operator {
			for _, f := range n.afterTraining {
				if err := f(g); err != nil {
					return nil, fmt.Errorf("zoo:%s: %w", name, err)
				}
			}
		}
	}
	g.Name = "zoo:" + spec
	if !explicitFramework {
		// the profile simulated is part of the name results carry
		sep := "?"
		if query != "" {
			sep = "&"
		}
		g.Name += sep + "framework=" + p.Framework
	}
	if err := g.Validate(); err != nil {
		if errors.Is(err, workloads.ErrOverflow) {
			// the user's parameters, not a bug (issue 31)
			return nil, fmt.Errorf("zoo:%s: the parameters %q make a graph too large to simulate: %w (valid: smaller batch, seq, hidden or layers)", name, query, err)
		}
		return nil, fmt.Errorf("zoo:%s: generated graph is invalid (a bug): %w", name, err)
	}
	return g, nil
}
