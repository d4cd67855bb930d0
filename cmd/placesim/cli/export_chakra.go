package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"placesim/reports"
	"placesim/study"
)

// exportChakra writes per-rank Chakra ETs of a placed, simulated step:
// --out is a directory (its trace.%d.et) or a pattern with %d.
func exportChakra(opts *ExportOptions) error {
	if opts.Cluster == "" {
		return fmt.Errorf("--format chakra needs --cluster (the step is placed and played on it)")
	}
	if opts.ToFile == "" {
		return fmt.Errorf("--format chakra needs --out: a directory (written as DIR/trace.%%d.et) or a pattern holding %%d, one file per rank")
	}
	pattern := opts.ToFile
	if !strings.Contains(pattern, "%d") {
		if err := os.MkdirAll(pattern, 0o755); err != nil {
			return fmt.Errorf("--out %q: %w", pattern, err)
		}
		pattern = filepath.Join(pattern, "trace.%d.et")
	} else if strings.Count(pattern, "%") != 1 || !strings.HasSuffix(pattern, ".et") {
		return fmt.Errorf("--out %q: a pattern holds one %%d, no other %%, and ends in .et (trace.%%d.et)", pattern)
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	files, res, err := study.ExportChakra(opts.Ctx, reg, study.PlaceRequest{
		Inputs: study.Inputs{Workload: opts.Workload, Cluster: opts.Cluster},
		Spec:   study.Spec{Placer: opts.Placer, Seed: 1},
	})
	if err != nil {
		return err
	}
	for r, data := range files {
		if err := opts.Ctx.Err(); err != nil {
			return err
		}
		if err := reports.WriteFileAtomic(fmt.Sprintf(pattern, r), data); err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.ErrOut, "wrote %d ranks as %s (step %.6g ms, %d transfers)\n", len(files), pattern, res.StepTime*1e3, res.TransferCount)
	return nil
}
