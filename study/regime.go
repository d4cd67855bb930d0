package study

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"placesim/devices"
	"placesim/engine"
	"placesim/parallel"
	"placesim/placers"
)

// Regime is an execution regime: how every placer's plan is played. The
// zero Regime is one un-pipelined step. It is a request-level setting: a
// comparison plays every placer's plan in the same regime, with the same
// global batch (a pipeline's micro-batches and data-parallel replicas
// split the workload's batch), so that a ranking never crosses regimes.
type Regime struct {
	// Pipeline, when set, plays the plan as a micro-batch pipeline
	// (schedule, micro-batches, recomputation; the schedule replaces any
	// order or priority the placer chose), with stages from Stages.
	Pipeline *engine.Pipeline
	// Stages is where pipeline stages come from: StagesAuto (the zero
	// value: one per device the placer used), StagesEven (equal layer
	// shares, replacing the placer's devices) or StagesFile (a stage file,
	// see ParseStages).
	Stages StageSource
	// DataParallel, when set, replicates the plan; the placer then places
	// on the first 1/Replicas of the cluster's accelerators and the
	// replicas take the others.
	DataParallel *engine.DataParallel
	// Layout, when set, is a large-model training layout (tensor,
	// pipeline, virtual-pipeline, context, expert and data-parallel sizes,
	// sharding, recomputation; see package parallel). It travels with the
	// regime unchanged; nil: the regime is given by the fields above alone.
	Layout *parallel.Layout
}

// ReplicasAll as DataParallel.Replicas of a Regime ("dp:all") makes one
// replica per accelerator of the cluster the regime is played on.
const ReplicasAll = -1

// IsStep reports whether r is one un-pipelined, un-replicated step.
func (r Regime) IsStep() bool {
	return r.Pipeline == nil && (r.DataParallel == nil || r.DataParallel.Replicas == 1)
}

// resolve returns r with "dp:all" replaced by one replica per accelerator
// of c.
func (r Regime) resolve(c *devices.Cluster) Regime {
	if r.DataParallel != nil && r.DataParallel.Replicas == ReplicasAll {
		dp := *r.DataParallel
		dp.Replicas = max(1, len(c.Accelerators()))
		r.DataParallel = &dp
		if dp.Replicas == 1 {
			r.DataParallel = nil
		}
	}
	return r
}

// String is r in the syntax ParseRegime reads: "step", "1f1b:16",
// "gpipe:8:recompute", "dp:4", "1f1b:8+dp:2"; a pipeline's non-default
// stage source is added as ":even" or ":stages=FILE".
func (r Regime) String() string {
	if r.Layout != nil {
		s := layoutPrefix + r.Layout.String()
		if r.Pipeline != nil || r.DataParallel != nil {
			s += " (with a graph regime: invalid)"
		}
		return s
	}
	var parts []string
	if p := r.Pipeline; p != nil {
		s := fmt.Sprintf("%s:%d", p.Schedule, p.MicroBatches)
		if p.Recompute {
			s += ":recompute"
		}
		switch r.Stages.Kind {
		case StagesEven:
			s += ":even"
		case StagesFile:
			s += ":stages=" + r.Stages.File
		}
		parts = append(parts, s)
	}
	if d := r.DataParallel; d != nil && d.Replicas == ReplicasAll {
		parts = append(parts, "dp:all")
	} else if d != nil && d.Replicas > 1 {
		parts = append(parts, fmt.Sprintf("dp:%d", d.Replicas))
	}
	if len(parts) == 0 {
		return "step"
	}
	return strings.Join(parts, "+")
}

// regimeSyntax is ParseRegime's grammar, for error messages and help.
const regimeSyntax = `step | SCHEDULE:MICROBATCHES[:recompute][:even] | dp:REPLICAS | SCHEDULE:MICROBATCHES+dp:REPLICAS | layout:LAYOUT (SCHEDULE: gpipe, 1f1b, pipedream; REPLICAS: a number or all, one per accelerator; LAYOUT: a large-model layout as train's --layout, for a decoder-only model)`

// RegimeSyntax documents ParseRegime's grammar (for --help).
func RegimeSyntax() string { return regimeSyntax }

// ParseRegime reads a regime: "step" (one step), "1f1b:16" (a pipeline
// schedule and its micro-batches, optionally ":recompute" and ":even" for
// equal layer-share stages), "dp:4" (data parallel, 4 replicas; "dp:all":
// one replica per accelerator of the cluster), or a
// pipeline and data parallelism joined by "+" ("1f1b:8+dp:2"), or
// "layout:SPEC", a large-model layout alone (SPEC as parallel.Parse
// reads it: "layout:tp=4,pp=4,dp=2,gbs=64"; played by engine/llm on a
// decoder-only model, see SimulateLayout). dp's
// all-reduce bucket and overlap come from dp (nil: one bucket, no overlap).
func ParseRegime(s string, dp *engine.DataParallel) (Regime, error) {
	var r Regime
	bad := func(why string) (Regime, error) {
		return Regime{}, fmt.Errorf("regime %q: %s (valid: %s)", s, why, regimeSyntax)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return bad("empty")
	}
	if s == "step" {
		return r, nil
	}
	if strings.HasPrefix(s, layoutPrefix) {
		return parseLayoutRegime(s)
	}
	for _, part := range strings.Split(s, "+") {
		f := strings.Split(strings.TrimSpace(part), ":")
		if len(f) < 2 {
			return bad(fmt.Sprintf("%q has no count", part))
		}
		n, err := strconv.Atoi(f[1])
		if err == nil && n < 1 {
			err = fmt.Errorf("below 1")
		}
		if f[0] == "dp" && f[1] == "all" {
			n, err = ReplicasAll, nil
		}
		if err != nil {
			return bad(fmt.Sprintf("%q: count %q is not an integer >= 1", part, f[1]))
		}
		if f[0] == "dp" {
			if r.DataParallel != nil || len(f) > 2 {
				return bad(fmt.Sprintf("%q: dp given twice or with extra fields", part))
			}
			d := engine.DataParallel{}
			if dp != nil {
				d = *dp
			}
			d.Replicas = n
			r.DataParallel = &d
			continue
		}
		if n == ReplicasAll {
			return bad(fmt.Sprintf("%q: \"all\" counts replicas only", part))
		}
		sched, err := engine.ParseSchedule(f[0])
		if err != nil {
			return bad(fmt.Sprintf("%q: unknown schedule %q", part, f[0]))
		}
		if r.Pipeline != nil {
			return bad("two pipeline schedules")
		}
		r.Pipeline = &engine.Pipeline{Schedule: sched, MicroBatches: n}
		for _, x := range f[2:] {
			switch {
			case x == "recompute":
				r.Pipeline.Recompute = true
			case x == "even":
				r.Stages = StageSource{Kind: StagesEven}
			case strings.HasPrefix(x, "stages=") && len(x) > len("stages="):
				r.Stages = StageSource{Kind: StagesFile, File: strings.TrimPrefix(x, "stages=")}
			default:
				return bad(fmt.Sprintf("%q: unknown modifier %q", part, x))
			}
		}
	}
	return r, nil
}

// ParseRegimes reads a comma-separated list of regimes (see ParseRegime);
// a regime given twice is an error.
func ParseRegimes(list string, dp *engine.DataParallel) ([]Regime, error) {
	var out []Regime
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		r, err := ParseRegime(s, dp)
		if err != nil {
			return nil, err
		}
		if seen[r.String()] {
			return nil, fmt.Errorf("regime %q is listed twice", r.String())
		}
		seen[r.String()] = true
		out = append(out, r)
	}
	return out, nil
}

// PlanRegime is the regime a placer's plan asks for on its own (its
// pipeline and data parallelism, if any).
func PlanRegime(p *engine.Plan) Regime {
	var r Regime
	if p.Pipeline != nil {
		pl := *p.Pipeline
		r.Pipeline = &pl
	}
	if p.DataParallel != nil {
		dp := *p.DataParallel
		r.DataParallel = &dp
	}
	return r
}

// playIn makes the placer's plan play in regime r: it drops the pipeline
// a max-load placer attached to its split (r decides the pipeline) and
// says why a plan cannot be played in r (notComparable: a plan that
// replicates the model itself). note says when the plan is played outside
// the regime its placer declared (placers.RegimeDeclarer).
func playIn(plan *engine.Plan, native placers.Regime, r Regime) (out *engine.Plan, note, notComparable string) {
	if d := plan.DataParallel; d != nil && d.Replicas > 1 && r.DataParallel != nil {
		return nil, "", fmt.Sprintf("not comparable in regime %s: given one replica's devices, the placer replicates the model again (x%d); its plan is data parallelism over all the devices it is given (compare it with dp:N over every accelerator)",
			r, d.Replicas)
	}
	if d := plan.DataParallel; d != nil && d.Replicas > 1 {
		return nil, "", fmt.Sprintf("not comparable in regime %s: the placer replicates the model itself (its plan is data parallel x%d); compare it in a data-parallel regime (dp:N), where it is given one replica's devices",
			r, d.Replicas)
	}
	p := *plan
	p.Pipeline, p.DataParallel = nil, nil
	switch {
	case native == placers.RegimePipeline && r.Pipeline == nil:
		note = "max-load split (made for a pipeline) played as " + r.String()
	case native == placers.RegimeDataParallel && r.DataParallel == nil:
		note = "placer made for data parallelism played as " + r.String()
	}
	return &p, note, ""
}

// RegimeList is a scenario's regimes. A scenario file and a results file
// hold them as strings in ParseRegime's syntax; they are parsed once, when
// the file is decoded, and the typed values flow to every point.
type RegimeList []Regime

// Strings is the list in ParseRegime's syntax.
func (l RegimeList) Strings() []string {
	out := make([]string, len(l))
	for i, r := range l {
		out[i] = r.String()
	}
	return out
}

// MarshalJSON writes the list as strings in ParseRegime's syntax.
func (l RegimeList) MarshalJSON() ([]byte, error) { return json.Marshal(l.Strings()) }

// MarshalYAML writes the list as strings in ParseRegime's syntax.
func (l RegimeList) MarshalYAML() (any, error) { return l.Strings(), nil }

// UnmarshalJSON reads a list of strings in ParseRegime's syntax.
func (l *RegimeList) UnmarshalJSON(b []byte) error {
	var xs []string
	if err := json.Unmarshal(b, &xs); err != nil {
		return fmt.Errorf("field regimes: %w (valid: a list of strings such as [step, \"1f1b:16\", \"dp:4\"])", err)
	}
	return l.parse(xs)
}

// UnmarshalYAML reads a list of strings in ParseRegime's syntax.
func (l *RegimeList) UnmarshalYAML(n *yaml.Node) error {
	var xs []string
	if err := n.Decode(&xs); err != nil {
		return fmt.Errorf("field regimes (line %d): want a list of strings such as [step, \"1f1b:16\", \"dp:4\"]", n.Line)
	}
	return l.parse(xs)
}

func (l *RegimeList) parse(xs []string) error {
	out := make(RegimeList, 0, len(xs))
	for i, x := range xs {
		r, err := ParseRegime(x, nil)
		if err != nil {
			return fmt.Errorf("regimes[%d]: %w", i, err)
		}
		out = append(out, r)
	}
	*l = out
	return nil
}
