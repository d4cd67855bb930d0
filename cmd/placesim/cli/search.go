package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"placesim/parallel"
	"placesim/reports"
	"placesim/study"
	"placesim/workloads/zoo"
)

// SearchOptions are search's parsed flags.
type SearchOptions struct {
	*Factory
	Ctx                               context.Context
	Workload, Cluster                 string
	GPUs, GlobalBatch, Seq, Top       int
	Precision                         string
	MaxTP, MaxCP, MaxPP, MaxVP        int
	MicroBatches, Recompute, Sharding string
	Planners                          string
	Workers                           int
	OutDir                            string
	Shard                             shardFlags
	Merge, Quiet, AllVariants         bool
	TPOverlap                         bool
	CompareTo, Published              string
	Format                            formatFlag
}

// NewCmdSearch builds search: the parallel layout search of a large
// model on a system.
func NewCmdSearch(f *Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "search -w zoo:MODEL -c SYSTEM --gpus N --gbs N",
		Short: "Search the parallel layout (TP, PP, VP, CP, EP, DP, micro-batch, recomputation, sharding, stage planner) of a large model",
		Long: `Enumerate every layout of a model on N GPUs of a system at a global batch:
tensor (powers of two up to --max-tp), context (up to --max-cp), pipeline
(any divisor, up to --max-pp), virtual stages (up to --max-vp, the layers
split evenly), expert (MoE models: divisors of dp*cp that divide the
experts) and data parallelism (the rest), micro-batch sizes (--mbs),
recomputation (--recompute), optimizer sharding (--sharding; ZeRO-2/3 only
without a pipeline) and stage planners (--planners). Sequence parallelism
is on whenever tp > 1, and with it the overlap of the tensor-parallel
communication with the GEMMs (Transformer Engine userbuffers, as NeMo's
performance recipes run it; --tp-overlap=false: off); the schedule is
1F1B, interleaved when vp > 1.

The layouts the memory closed form rules out are discarded before any
simulation (the count is printed); the rest are simulated in parallel
(--workers), one iteration each by symmetry, and ranked by iteration time
(then peak memory, then enumeration order: deterministic). It prints the
best --top with iteration time, tokens/s/GPU, MFU and peak memory, and
with -o DIR writes results.json (every candidate in the results schema,
pruned ones with their out-of-memory verdict), results.csv, table.txt and
search.png/.svg (iteration time against peak memory of every candidate).

--compare-to LAYOUT, or --published FILE (a large-model validation file
such as ../shared/fidelity/llm.tsv: its rows of the same model, GPU count,
global batch and sequence), say where that layout ranks.

With -o DIR the simulated candidates are journaled: a killed search re-run
with the same flags and DIR simulates only the missing ones. --shard i/N
(or JOB_COMPLETION_INDEX / SLURM_ARRAY_TASK_ID with --shards N) simulates
every N-th candidate and writes results-i-of-N.json; --merge then reads
every shard's file in DIR and ranks them all.`,
		Example: `  placesim search -w zoo:llama3.1-70b -c dgx-h100 --gpus 64 --gbs 128 --seq 8192 --top 10 -o out/search-70b \
      --published ../shared/fidelity/llm.tsv
  placesim search -w zoo:llama3.1-405b -c dgx-h100 --gpus 1024 --gbs 512 --compare-to tp=8,pp=8,vp=8,cp=2,dp=8,mbs=1
  JOB_COMPLETION_INDEX=3 placesim search -w zoo:llama3.1-70b --gpus 64 --gbs 128 --shards 8 -o out/s
  placesim search -w zoo:llama3.1-70b --gpus 64 --gbs 128 --merge -o out/s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return searchRun(opts)
		},
	}
	fl := cmd.Flags()
	def := study.DefaultSearchSpace()
	fl.StringVarP(&opts.Workload, "workload", "w", "", "model: zoo:NAME[?seq=N&layers=N...] (required; "+strings.Join(zoo.LLMNames(), ", ")+")")
	fl.StringVarP(&opts.Cluster, "cluster", "c", "dgx-h100", "system (a one-line system such as dgx-h100 or dgx-h100:nodes=8, a cluster preset or file)")
	fl.IntVar(&opts.GPUs, "gpus", 0, "GPUs every layout uses (required)")
	fl.IntVar(&opts.GlobalBatch, "gbs", 0, "global batch: sequences per iteration (required)")
	fl.IntVar(&opts.Seq, "seq", 0, "sequence length in tokens (default: the model's)")
	fl.IntVar(&opts.Top, "top", 10, "layouts printed")
	fl.StringVar(&opts.Precision, "precision", "bf16", "precision of every layout: bf16, fp16, fp8")
	fl.IntVar(&opts.MaxTP, "max-tp", def.MaxTP, "largest tensor-parallel size")
	fl.IntVar(&opts.MaxCP, "max-cp", def.MaxCP, "largest context-parallel size")
	fl.IntVar(&opts.MaxPP, "max-pp", 0, "largest pipeline size (default: the number of layers)")
	fl.IntVar(&opts.MaxVP, "max-vp", def.MaxVP, "most virtual stages per pipeline rank")
	fl.StringVar(&opts.MicroBatches, "mbs", "1,2,4", "micro-batch sizes tried")
	fl.StringVar(&opts.Recompute, "recompute", "none,selective,full", "recomputation modes tried")
	fl.StringVar(&opts.Sharding, "sharding", "none,zero1,zero2,zero3", "optimizer shardings tried (zero2/zero3 only where pp = 1)")
	fl.BoolVar(&opts.TPOverlap, "tp-overlap", true, "overlap tensor-parallel communication with the GEMMs (Transformer Engine userbuffers) in every layout with tp > 1")
	fl.StringVar(&opts.Planners, "planners", study.PlannerEven, "stage planners tried: even (Megatron) and placer names")
	fl.IntVar(&opts.Workers, "workers", 0, "candidates simulated in parallel (default: number of cores)")
	fl.StringVarP(&opts.OutDir, "out", "o", "", "output directory (results.json, results.csv, table.txt, search.png/.svg, the journal)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress")
	fl.BoolVar(&opts.AllVariants, "all-variants", false, "list every variant (recomputation, sharding, planner) of a layout's sizes in the top; default: the best variant of each")
	fl.BoolVar(&opts.Merge, "merge", false, "rank the shards' results found in --out instead of simulating")
	fl.StringVar(&opts.CompareTo, "compare-to", "", "a layout (tp=..,pp=..,...) whose rank among the candidates to report")
	fl.StringVar(&opts.Published, "published", "", "a large-model validation file (llm.tsv): report the rank of its layouts for this setting")
	opts.Shard.register(cmd)
	opts.Format.register(cmd, "", formatTable, formatJSON, formatCSV)
	_ = cmd.MarkFlagRequired("workload")
	_ = cmd.MarkFlagRequired("gpus")
	_ = cmd.MarkFlagRequired("gbs")
	return cmd
}

func splitList(flag, v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %q: empty (valid: a comma-separated list)", flag, v)
	}
	return out, nil
}

// parseList is splitList's items of flag's value v, each parsed by
// parse; the first error names the flag.
func parseList[T any](flag, v string, parse func(string) (T, error)) ([]T, error) {
	items, err := splitList(flag, v)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for _, s := range items {
		x, err := parse(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// searchRequest builds the request of the flags.
func searchRequest(opts *SearchOptions) (*study.SearchRequest, error) {
	spec := opts.Workload
	if opts.Seq != 0 {
		if opts.Seq < 1 || opts.Seq > 1<<24 {
			return nil, fmt.Errorf("--seq %d (valid range: 1 to %d)", opts.Seq, 1<<24)
		}
		sep := "?"
		if strings.Contains(spec, "?") {
			sep = "&"
		}
		spec += sep + "seq=" + strconv.Itoa(opts.Seq)
	}
	m, err := zoo.ParseLLM(spec)
	if err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	if opts.GPUs < 1 {
		return nil, fmt.Errorf("--gpus %d (valid range: >= 1)", opts.GPUs)
	}
	c, err := study.LayoutCluster(opts.Cluster, opts.GPUs)
	if err != nil {
		return nil, fmt.Errorf("--cluster: %w", err)
	}
	prec, err := parallel.ParsePrecision(opts.Precision)
	if err != nil {
		return nil, fmt.Errorf("--precision: %w", err)
	}
	sp := study.DefaultSearchSpace()
	sp.MaxTP, sp.MaxCP, sp.MaxPP, sp.MaxVP = opts.MaxTP, opts.MaxCP, opts.MaxPP, opts.MaxVP
	sp.NoTPOverlap = !opts.TPOverlap
	if sp.MicroBatches, err = parseList("--mbs", opts.MicroBatches, func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q (valid: integers >= 1)", s)
		}
		return n, nil
	}); err != nil {
		return nil, err
	}
	if sp.Recompute, err = parseList("--recompute", opts.Recompute, parallel.ParseRecompute); err != nil {
		return nil, err
	}
	if sp.Sharding, err = parseList("--sharding", opts.Sharding, parallel.ParseSharding); err != nil {
		return nil, err
	}
	if sp.Planners, err = splitList("--planners", opts.Planners); err != nil {
		return nil, err
	}
	return &study.SearchRequest{Workload: spec, Model: m, Cluster: c, GPUs: opts.GPUs, GlobalBatch: opts.GlobalBatch, Precision: prec, Space: sp}, nil
}

func searchRun(opts *SearchOptions) error {
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	if opts.Top < 1 {
		return fmt.Errorf("--top %d (valid range: >= 1)", opts.Top)
	}
	if opts.Workers < 0 || opts.Workers > study.MaxWorkers {
		return fmt.Errorf("--workers %d (valid: 0 for the number of cores, up to %d)", opts.Workers, study.MaxWorkers)
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := searchRequest(opts)
	if err != nil {
		return err
	}
	var compare []searchRef
	if opts.CompareTo != "" {
		spec := opts.CompareTo
		if !strings.Contains(spec, "gbs=") {
			spec += ",gbs=" + strconv.Itoa(opts.GlobalBatch) // the search's global batch
		}
		l, err := parallel.Parse(spec)
		if err != nil {
			return fmt.Errorf("--compare-to: %w", err)
		}
		compare = append(compare, searchRef{name: "--compare-to " + opts.CompareTo, layout: l})
	}
	var publishedNote string
	if opts.Published != "" {
		refs, note, err := publishedRefs(opts.Published, req)
		if err != nil {
			return fmt.Errorf("--published: %w", err)
		}
		compare = append(compare, refs...)
		publishedNote = note
	}
	sh, err := opts.Shard.resolve()
	if err != nil {
		return err
	}
	if opts.Merge && opts.OutDir == "" {
		return fmt.Errorf("--merge needs --out DIR (the folder holding the shards' results-I-of-N.json)")
	}
	if opts.Merge && sh.N > 1 {
		return fmt.Errorf("--merge with --shard %d/%d: merge reads every shard; give neither --shard nor a batch index", sh.I, sh.N)
	}
	if opts.OutDir != "" {
		release, err := claimOutDir("--out", opts.OutDir, "search", sh)
		if err != nil {
			return err
		}
		defer release()
		if err := study.ClaimDir(opts.OutDir, "search"); err != nil {
			return err
		}
	}
	t0 := time.Now()
	var res *study.SearchResult
	if opts.Merge {
		pts, err := study.SearchPoints(req)
		if err != nil {
			return err
		}
		recs, err := study.MergeSearch(opts.OutDir, pts)
		if err != nil {
			return err
		}
		res = &study.SearchResult{Records: recs, Ranked: study.RankSearch(recs)}
		res.Counts = study.CountSearch(recs)
	} else {
		prog := newProgress(opts.Factory, "search", 0, opts.Quiet)
		so := study.SearchOptions{Dir: opts.OutDir, Shard: sh, Workers: opts.Workers}
		so.Notice = func(msg string) { fmt.Fprintln(opts.ErrOut, "placesim:", msg) }
		so.Progress = func(done, total int) {
			prog.setTotal(total)
			prog.finished("", done)
		}
		if strings.TrimSpace(opts.Planners) != study.PlannerEven {
			if so.Registry, err = opts.Registry(); err != nil {
				prog.close()
				return err
			}
		}
		res, err = study.SearchLayouts(ctx, req, so)
		prog.close()
		if err != nil {
			return err
		}
	}
	elapsed := time.Since(t0)
	c := res.Counts
	summary := fmt.Sprintf("%s on %s, %d GPUs, global batch %d, sequence %d: %d layouts enumerated, %d invalid, %d ruled out by the memory closed form before simulating, %d simulated (%d out of memory, %d failed) in %.1f s",
		req.Model.Name, req.Cluster.Name, req.GPUs, req.GlobalBatch, req.Model.Seq, c.Enumerated, c.Invalid, c.Pruned, c.Simulated, c.OOM, c.Failed, elapsed.Seconds())
	if sh.N > 1 {
		summary += fmt.Sprintf(" (shard %d/%d: every %d-th candidate; rank them all with --merge)", sh.I, sh.N, sh.N)
	}
	var refLines []string
	if publishedNote != "" {
		refLines = append(refLines, publishedNote)
	}
	for _, ref := range compare {
		refLines = append(refLines, ref.describe(res, opts.Top))
	}
	stamp := study.NewStamp("search")
	results := &study.Results{Stamp: stamp, Scenario: searchScenario(req, opts), Records: res.Records}
	if sh.N > 1 {
		results.Shard = fmt.Sprintf("%d/%d", sh.I, sh.N)
	}
	var tab strings.Builder
	writeSearchTable(&tab, summary, res, opts.Top, refLines, opts.AllVariants)
	switch format {
	case formatJSON:
		if err := study.EncodeResults(opts.Out, results); err != nil {
			return err
		}
	case formatCSV:
		if err := study.WriteRecordsCSV(opts.Out, results); err != nil {
			return err
		}
	default:
		fmt.Fprint(opts.Out, tab.String())
	}
	if opts.OutDir != "" {
		if err := writeSearchDir(ctx, opts, sh, results, res, tab.String(), stamp, compare); err != nil {
			return err
		}
	}
	if len(res.Ranked) == 0 && sh.N <= 1 {
		return &exitError{ExitOOM, fmt.Errorf("search: %w: every candidate was ruled out or ran out of memory (%d pruned, %d out of memory, %d failed)", study.ErrNoFit, c.Pruned, c.OOM, c.Failed)}
	}
	return nil
}

// searchScenario records the search's request in results.json's
// scenario field (its name, workload, cluster, planners and the search
// flags in the description).
func searchScenario(req *study.SearchRequest, opts *SearchOptions) *study.Scenario {
	return &study.Scenario{Name: "search",
		Description: fmt.Sprintf("layout search: gpus=%d gbs=%d precision=%s max-tp=%d max-cp=%d max-pp=%d max-vp=%d mbs=%s recompute=%s sharding=%s tp-overlap=%v",
			req.GPUs, req.GlobalBatch, req.Precision, opts.MaxTP, opts.MaxCP, opts.MaxPP, opts.MaxVP, opts.MicroBatches, opts.Recompute, opts.Sharding, opts.TPOverlap),
		Workloads: []string{req.Workload}, Clusters: []string{req.Cluster.Name}, Placers: req.Space.Planners}
}

// searchRef is a layout whose rank a search reports.
type searchRef struct {
	name   string
	layout parallel.Layout
}

func (r searchRef) describe(res *study.SearchResult, top int) string {
	l := r.layout
	sizes := fmt.Sprintf("tp=%d,pp=%d,vp=%d,cp=%d,ep=%d,dp=%d,mbs=%d", l.TP, l.PP, l.VP, l.CP, l.EP, l.DP, l.MicroBatch)
	rank, rec := study.PublishedIn(res.Records, res.Ranked, l)
	if rank == 0 {
		why := "not enumerated (outside the search space: check --max-tp/--max-cp/--max-pp/--max-vp/--mbs, --gpus and --gbs)"
		for _, x := range res.Records {
			if !study.SameSizes(x.Regime, l) {
				continue
			}
			switch {
			case x.NotComparable != "":
				why = "enumerated, but " + x.NotComparable
			case x.OOM != nil:
				why = "simulated, out of memory"
			case x.Error != "":
				why = "failed: " + x.Error
			}
			break
		}
		return fmt.Sprintf("%s (%s): %s", r.name, sizes, why)
	}
	distinct := study.Distinct(res.Records, res.Ranked)
	drank, _ := study.PublishedIn(res.Records, distinct, l)
	best := res.Records[res.Ranked[0]]
	out := fmt.Sprintf("%s (%s): rank %d of %d distinct layouts (%d of %d variants); its best variant %s takes %.3f s (%.0f tokens/s/GPU, MFU %.1f %%); the best layout takes %.3f s, %.1f %% less",
		r.name, sizes, drank, len(distinct), rank, len(res.Ranked), rec.LLM.Layout, rec.StepTime, rec.LLM.TokensPerSecPerGPU, 100*rec.LLM.MFU, best.StepTime, 100*(1-best.StepTime/rec.StepTime))
	if drank > top {
		out += fmt.Sprintf("\n  why not in the top %d: %d distinct layouts simulate faster; the best (%s) against it: %s", top, drank-1, best.LLM.Layout, contrast(best, *rec))
	}
	return out
}

// contrast says where the best record's time goes against ref's: the
// pipeline bubble and each kind of exposed communication.
func contrast(best, ref study.Record) string {
	parts := []string{fmt.Sprintf("bubble %.1f %% vs %.1f %%", 100*best.LLM.Bubble, 100*ref.LLM.Bubble)}
	for _, k := range []string{"TP", "CP", "EP", "PP", "DP"} {
		a, b := best.LLM.ExposedComm[k], ref.LLM.ExposedComm[k]
		if a > 0.0005 || b > 0.0005 {
			parts = append(parts, fmt.Sprintf("exposed %s %.3f s vs %.3f s", k, a, b))
		}
	}
	parts = append(parts, fmt.Sprintf("peak %.1f GB vs %.1f GB", float64(best.MaxPeak())/1e9, float64(ref.MaxPeak())/1e9))
	return strings.Join(parts, ", ")
}

// publishedRefs reads a large-model validation file's rows of the
// request's model (same architecture), GPU count, global batch and
// sequence; note says which rows there are when none matches.
func publishedRefs(path string, req *study.SearchRequest) ([]searchRef, string, error) {
	rows, err := study.ReadLLMValidation(path)
	if err != nil {
		return nil, "", err
	}
	m := req.Model
	var refs []searchRef
	var other []string
	for _, r := range rows {
		a := r.Model
		if a.Layers != m.Layers || a.Hidden != m.Hidden || a.Heads != m.Heads || a.FFN != m.FFN || a.Experts != m.Experts {
			continue
		}
		if r.GPUs == req.GPUs && r.Layout.GlobalBatch == req.GlobalBatch && a.Seq == m.Seq && r.Layout.Precision == req.Precision {
			refs = append(refs, searchRef{name: fmt.Sprintf("published %s (%s:%d, measured %g %s)", r.ID, filepath.Base(path), r.Line, r.Measured, r.Unit), layout: r.Layout})
			continue
		}
		other = append(other, fmt.Sprintf("%s (%d GPUs, gbs %d, seq %d, %s)", r.ID, r.GPUs, r.Layout.GlobalBatch, a.Seq, r.Layout.Precision))
	}
	note := ""
	if len(refs) == 0 {
		note = fmt.Sprintf("published: no row of %s has this model at %d GPUs, global batch %d, sequence %d, %s", path, req.GPUs, req.GlobalBatch, m.Seq, req.Precision)
		if len(other) > 0 {
			note += "; its rows of this model: " + strings.Join(other, "; ")
		}
	}
	return refs, note, nil
}

func writeSearchTable(w io.Writer, summary string, res *study.SearchResult, top int, refs []string, all bool) {
	fmt.Fprintln(w, summary)
	list := res.Ranked
	if !all {
		list = study.Distinct(res.Records, res.Ranked)
		fmt.Fprintf(w, "best %d of %d distinct layouts (sizes tp..mbs; each its fastest variant of recomputation, sharding and planner; --all-variants lists every one):\n", min(top, len(list)), len(list))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\titeration s\ttokens/s/GPU\tMFU %\tpeak GB\tplanner\tlayout\t")
	for k, i := range list[:min(top, len(list))] {
		r := res.Records[i]
		fmt.Fprintf(tw, "%d\t%.3f\t%.0f\t%.1f\t%.1f\t%s\t%s\t\n", k+1, r.StepTime, r.LLM.TokensPerSecPerGPU, 100*r.LLM.MFU, float64(r.MaxPeak())/1e9, r.Placer, r.LLM.Layout)
	}
	tw.Flush()
	if len(res.Ranked) == 0 {
		fmt.Fprintln(w, "no layout fits")
	}
	for _, s := range refs {
		fmt.Fprintln(w, s)
	}
}

func writeSearchDir(ctx context.Context, opts *SearchOptions, sh study.Shard, results *study.Results, res *study.SearchResult, table string, stamp *study.Stamp, refs []searchRef) error {
	var refLayouts []parallel.Layout
	refName := ""
	for _, r := range refs {
		refLayouts = append(refLayouts, r.layout)
		if refName == "" {
			refName = strings.SplitN(r.name, " (", 2)[0]
		}
	}
	dir := opts.OutDir
	if err := study.WriteResults(study.SearchResultsFile(dir, sh), results, nil); err != nil {
		return err
	}
	if sh.N > 1 {
		fmt.Fprintf(opts.ErrOut, "wrote %s (%d candidates of shard %d/%d)\n", study.SearchResultsFile(dir, sh), len(results.Records), sh.I, sh.N)
		return nil
	}
	var csv strings.Builder
	if err := study.WriteRecordsCSV(&csv, results); err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(dir, "results.csv"), []byte(csv.String())); err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(dir, "table.txt"), []byte(table)); err != nil {
		return err
	}
	fig := study.SearchFigure(results.Scenario.Workloads[0], results.Scenario.Clusters[0], res, opts.Top, !opts.AllVariants, refLayouts, refName)
	fig.Caption = stamp.String()
	if _, err := reports.WriteFiguresContext(ctx, dir, []*reports.Figure{fig}); err != nil {
		return err
	}
	fmt.Fprintf(opts.ErrOut, "wrote %s (%d candidates), %s.png/.svg\n", filepath.Join(dir, "results.json"), len(results.Records), filepath.Join(dir, fig.Name))
	return nil
}
