package study

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"placesim/devices"
	"placesim/engine"
	"placesim/internal/checked"
	"placesim/internal/readfile"
	"placesim/internal/strictyaml"
	"placesim/internal/units"
	"placesim/placers"
	"placesim/runresult"
)

// Scenario is a study: workloads x clusters x settings x placers x seeds.
// Its YAML form (unknown fields are errors):
//
//	name: pesto-nmt-bandwidth
//	description: Pesto Figure 8(b)
//	workloads: ["zoo:gnmt?batch=128&training=true"]
//	clusters: [2xV100-nvlink+cpu]
//	placers: [pesto, expert, m-sct]       # or [all]: every option-free placer
//	placerOptions: {expert: {file: plans/nmt.json}}
//	seeds: [1, 2]                           # default [1]
//	estimates: {mode: noise, sigma: 0.1}   # default exact
//	settings: [[{param: device.cpu.flops, value: 2x}]]   # fixed what-ifs
//	vary: {param: link.nvlink.bandwidth, range: "0.1x..10x:7"}
//	baseline: expert                        # improvement over it is plotted
//	timeout: 10m                            # per placement
//	regimes: [step, "1f1b:16", "dp:4"]      # default [step]; see ParseRegime
//	layout: tp=4,pp=4,dp=2,sp,zero=1,gbs=64 # a decoder-only model's layout (regime layout:...)
//	allreduce: {bucket: 25MiB, overlap: true, model: link}  # dp regimes' all-reduce
type Scenario struct {
	Name          string                       `yaml:"name" json:"name"`
	Description   string                       `yaml:"description,omitempty" json:"description,omitempty"`
	Workloads     []string                     `yaml:"workloads" json:"workloads"`
	Clusters      []string                     `yaml:"clusters" json:"clusters"`
	Placers       []string                     `yaml:"placers" json:"placers"`
	PlacerOptions map[string]map[string]string `yaml:"placerOptions,omitempty" json:"placerOptions,omitempty"`
	Seeds         []uint64                     `yaml:"seeds,omitempty" json:"seeds,omitempty"`
	Estimates     *EstimateSpec                `yaml:"estimates,omitempty" json:"estimates,omitempty"`
	Settings      [][]Setting                  `yaml:"settings,omitempty" json:"settings,omitempty"`
	Vary          *Vary                        `yaml:"vary,omitempty" json:"vary,omitempty"`
	Baseline      string                       `yaml:"baseline,omitempty" json:"baseline,omitempty"`
	Timeout       string                       `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Regimes are the execution regimes every placer is played in, each
	// in ParseRegime's syntax ("step", "1f1b:16", "dp:4"); default
	// [step]. Each is an axis of the points: a placer is ranked and
	// checked only against points of the same regime.
	Regimes RegimeList `yaml:"regimes,omitempty" json:"regimes,omitempty"`
	// Layout, when set, is a large-model layout (as train's --layout):
	// shorthand for the regime "layout:LAYOUT" beside any regimes. Its
	// points play each workload (a decoder-only preset, zoo:NAME) on each
	// cluster (a one-line system such as dgx-h100:nodes=8) by engine/llm,
	// each placer planning the pipeline stages ("even": Megatron's split);
	// a graph workload is an error of its point (ErrLayoutWorkload).
	Layout string `yaml:"layout,omitempty" json:"layout,omitempty"`
	// AllReduce sets the gradient all-reduce of every data-parallel
	// regime (default: one bucket per stage, not overlapped, the
	// framework's cost model).
	AllReduce *AllReduceSpec `yaml:"allreduce,omitempty" json:"allreduce,omitempty"`
	// Paper, in a paper scenario, holds the paper's published values and
	// claims; the scoreboard (Scoreboard) puts the results beside them.
	Paper *Paper `yaml:"paper,omitempty" json:"paper,omitempty"`
}

// AllReduceSpec is the all-reduce of a scenario's data-parallel regimes.
type AllReduceSpec struct {
	// Bucket is the gradient bucket size ("25MiB"; "" or "0": one bucket
	// per stage).
	Bucket string `yaml:"bucket,omitempty" json:"bucket,omitempty"`
	// Overlap starts each bucket's all-reduce as soon as its gradients
	// are ready.
	Overlap bool `yaml:"overlap,omitempty" json:"overlap,omitempty"`
	// Model is the all-reduce's cost model (see CollectiveModels): "" or
	// auto, the workload's framework's (FrameworkCollective); link, the
	// chunks' link time only; nccl or pytorch-ddp.
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Precision is what the all-reduce carries the gradients in
	// (ParseWirePrecision): "" or gradients, their own; fp32, fp16, bf16.
	Precision string `yaml:"precision,omitempty" json:"precision,omitempty"`
}

// EstimateSpec selects the estimates placers see.
type EstimateSpec struct {
	Mode  string  `yaml:"mode" json:"mode"`
	Sigma float64 `yaml:"sigma,omitempty" json:"sigma,omitempty"`
}

// Vary is a sweep axis: one parameter over a range (see ExpandRange).
type Vary struct {
	Param string `yaml:"param" json:"param"`
	Range string `yaml:"range" json:"range"`
}

// Point is one run of a scenario (runresult.Point).
type Point = runresult.Point

// LoadScenario reads and validates a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := readfile.Read(path, readfile.MaxYAML)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	s, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", path, err)
	}
	return s, nil
}

// ParseScenario decodes YAML (or JSON) strictly and validates it.
func ParseScenario(data []byte) (*Scenario, error) {
	var s Scenario
	if err := strictyaml.Decode(data, &s, "name, workloads, clusters and placers; see scenarios/"); err != nil {
		return nil, err
	}
	if err := s.Validate(nil); err != nil {
		return nil, err
	}
	return &s, s.checkOptionPlacers()
}

// checkOptionPlacers refuses placerOptions of a placer the file does not
// run: they would be ignored silently (a typo, a placer removed from the
// list; issue 31). With "all" among the placers any placer may be meant.
func (s *Scenario) checkOptionPlacers() error {
	if contains(s.Placers, "all") {
		return nil
	}
	var keys []string
	for p := range s.PlacerOptions {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		if !contains(s.Placers, p) {
			return fmt.Errorf("placerOptions.%s: placer %q is not among the scenario's placers (valid: options of %s)", p, p, strings.Join(s.Placers, ", "))
		}
	}
	return nil
}

// Validate checks the fields; with a registry it also checks placer names.
func (s *Scenario) Validate(reg *placers.Registry) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("field name is empty")
	case len(s.Workloads) == 0:
		return fmt.Errorf("field workloads is empty (want e.g. [\"zoo:resnet50?batch=64&training=true\"])")
	case len(s.Clusters) == 0:
		return fmt.Errorf("field clusters is empty (want preset names or cluster files)")
	case len(s.Placers) == 0:
		return fmt.Errorf("field placers is empty (want names, or [all])")
	}
	if _, err := s.timeout(); err != nil {
		return err
	}
	if s.Paper != nil {
		if err := s.Paper.Validate(); err != nil {
			return err
		}
	}
	if s.Estimates != nil {
		switch devices.EstimateMode(s.Estimates.Mode) {
		case devices.Exact, devices.Noisy, devices.StandardEval:
		default:
			return fmt.Errorf("estimates.mode %q (valid: exact, noise, standard-eval)", s.Estimates.Mode)
		}
	}
	for i, set := range s.Settings {
		for j, x := range set {
			if x.Param == "" || x.Value == "" {
				return fmt.Errorf("settings[%d][%d]: param and value are required", i, j)
			}
			if err := CheckSetting(x); err != nil {
				return fmt.Errorf("settings[%d][%d]: %w", i, j, err)
			}
		}
	}
	if _, err := s.regimes(); err != nil {
		return err
	}
	if s.Vary != nil {
		if s.Vary.Param == "" {
			return fmt.Errorf("vary.param is empty")
		}
		vals, err := ExpandRange(s.Vary.Range)
		if err != nil {
			return fmt.Errorf("vary.range: %w", err)
		}
		for _, v := range vals {
			if err := CheckSetting(Setting{Param: s.Vary.Param, Value: v}); err != nil {
				return fmt.Errorf("vary: %w", err)
			}
		}
	}
	if reg != nil {
		if err := CheckDataOptions(reg, s.PlacerOptions); err != nil {
			return err
		}
		for i, p := range s.Placers {
			if p == "all" || (p == PlannerEven && s.hasLayout()) {
				continue
			}
			if _, err := reg.New(p, s.PlacerOptions[p]); err != nil {
				return fmt.Errorf("placers[%d]: %w", i, err)
			}
		}
		if s.Baseline != "" && !contains(s.placerNames(reg), s.Baseline) {
			return fmt.Errorf("baseline %q is not among the scenario's placers", s.Baseline)
		}
	}
	return nil
}

// allReduce is the data-parallel settings of the scenario's regimes.
func (s *Scenario) allReduce() (*engine.DataParallel, error) {
	dp := &engine.DataParallel{}
	if a := s.AllReduce; a != nil {
		dp.Overlap = a.Overlap
		if a.Bucket != "" {
			b, err := units.ParseBytes(a.Bucket)
			if err != nil || b < 0 {
				return nil, fmt.Errorf("allreduce.bucket %q (valid: a size >= 0 such as 25MiB; 0: one bucket per stage)", a.Bucket)
			}
			dp.BucketBytes = b
		}
		m, err := ParseCollective("allreduce.model", a.Model)
		if err != nil {
			return nil, err
		}
		dp.Collective = m
		if dp.WireBytes, err = ParseWirePrecision("allreduce.precision", a.Precision); err != nil {
			return nil, err
		}
	}
	return dp, nil
}

// regimes is the scenario's regimes ([step] when none is given), each
// data-parallel one with the scenario's all-reduce; a regime given twice
// is an error.
func (s *Scenario) regimes() ([]Regime, error) {
	ar, err := s.allReduce()
	if err != nil {
		return nil, err
	}
	regimes := append(RegimeList(nil), s.Regimes...)
	if s.Layout != "" {
		r, err := ParseRegime(layoutPrefix+s.Layout, nil)
		if err != nil {
			return nil, fmt.Errorf("field layout: %w", err)
		}
		if len(s.Regimes) == 0 {
			return []Regime{r}, nil
		}
		regimes = append(regimes, r)
	}
	if len(regimes) == 0 {
		return []Regime{{}}, nil
	}
	out := make([]Regime, 0, len(regimes))
	seen := map[string]int{}
	for i, r := range regimes {
		if d := r.DataParallel; d != nil {
			dp := *ar
			dp.Replicas = d.Replicas
			r.DataParallel = &dp
		}
		if j, dup := seen[r.String()]; dup {
			return nil, fmt.Errorf("regimes[%d] = %q is regimes[%d] again", i, r.String(), j)
		}
		seen[r.String()] = i
		out = append(out, r)
	}
	return out, nil
}

func (s *Scenario) timeout() (time.Duration, error) {
	if s.Timeout == "" {
		return 10 * time.Minute, nil
	}
	d, err := time.ParseDuration(s.Timeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q (valid: a positive duration such as 90s or 10m)", s.Timeout)
	}
	return d, nil
}

// placerNames expands "all" to every registered placer needing no options.
func (s *Scenario) placerNames(reg *placers.Registry) []string {
	var out []string
	for _, p := range s.Placers {
		if p != "all" {
			out = append(out, p)
			continue
		}
		for _, n := range reg.Names() {
			if _, err := reg.New(n, s.PlacerOptions[n]); err == nil && !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Points enumerates the scenario's runs in a fixed order: workload,
// cluster, setting, vary value, regime, placer, seed.
func (s *Scenario) Points(reg *placers.Registry) ([]Point, error) {
	settings := s.Settings
	if len(settings) == 0 {
		settings = [][]Setting{nil}
	}
	var vary []string
	if s.Vary != nil {
		var err error
		if vary, err = ExpandRange(s.Vary.Range); err != nil {
			return nil, err
		}
	}
	seeds := s.Seeds
	if len(seeds) == 0 {
		seeds = []uint64{1}
	}
	regimes, err := s.regimes()
	if err != nil {
		return nil, err
	}
	names := s.placerNames(reg)
	n, err := pointCount(len(s.Workloads), len(s.Clusters), len(settings), max(len(vary), 1), len(regimes), len(names), len(seeds))
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	pts := make([]Point, 0, n)
	for _, w := range s.Workloads {
		for _, c := range s.Clusters {
			for _, base := range settings {
				combos := [][]Setting{base}
				if vary != nil {
					combos = nil
					for _, v := range vary {
						combos = append(combos, append(append([]Setting(nil), base...), Setting{Param: s.Vary.Param, Value: v}))
					}
				}
				for _, set := range combos {
					for _, r := range regimes {
						for _, p := range names {
							for _, seed := range seeds {
								pts = append(pts, Point{Index: len(pts), Workload: w, Cluster: c, Settings: set, Placer: p, Seed: seed, Regime: r.String()})
							}
						}
					}
				}
			}
		}
	}
	return pts, nil
}

// MaxPoints is the most points one scenario may expand into. Points are
// listed before any runs; a scenario whose product of workloads, clusters,
// settings, vary steps, regimes, placers and seeds is larger (2,000 seeds
// x 10,000 steps x 21 placers would be 420 million) is refused before the
// list is allocated. 10^6 points take hours even sharded.
const MaxPoints = 1_000_000

// pointCount multiplies the scenario's dimensions (workloads, clusters,
// settings, vary steps, regimes, placers, seeds) with overflow checks and
// refuses a product above MaxPoints, naming each factor.
func pointCount(workloads, clusters, settings, steps, regimes, placerCount, seeds int) (int, error) {
	n := int64(1)
	for _, f := range []int{workloads, clusters, settings, steps, regimes, placerCount, seeds} {
		var ok bool
		if n, ok = checked.Mul(n, int64(f)); !ok || n > MaxPoints {
			return 0, fmt.Errorf("expands into more than %d points: %d workloads x %d clusters x %d settings x %d vary steps x %d regimes x %d placers x %d seeds (valid: a product <= %d; split it into several scenarios or fewer seeds or steps)",
				MaxPoints, workloads, clusters, settings, steps, regimes, placerCount, seeds, MaxPoints)
		}
	}
	return int(n), nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// hasLayout reports whether a regime of the scenario carries a layout
// (its placers may then include PlannerEven, Megatron's stage split).
func (s *Scenario) hasLayout() bool {
	rs, err := s.regimes()
	if err != nil {
		return s.Layout != ""
	}
	for _, r := range rs {
		if r.Layout != nil {
			return true
		}
	}
	return false
}
