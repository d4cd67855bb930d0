package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/placers"
)

// ListOptions are list's arguments and surroundings.
type ListOptions struct {
	*Factory
	What        string
	WithOptions bool
}

// NewCmdList builds list; runF, when not nil, replaces listRun.
func NewCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:       "list placers|clusters|devices",
		Short:     "List the registered placers (with --options, their options), cluster presets or device kinds",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"placers", "clusters", "devices"},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.What = args[0]
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.WithOptions, "options", false, "with placers: each placer's options (type, default, valid range, doc)")
	return cmd
}

func listRun(opts *ListOptions) error {
	w := opts.Out
	if opts.WithOptions && opts.What != "placers" {
		return fmt.Errorf("--options goes with list placers, not list %s", opts.What)
	}
	switch opts.What {
	case "placers":
		reg, err := opts.Registry()
		if err != nil {
			return err
		}
		for _, e := range reg.Entries() {
			if !opts.WithOptions {
				fmt.Fprintf(w, "%-24s %s\n", e.Name, e.Description)
				continue
			}
			if err := placers.Describe(w, e); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	case "clusters":
		for _, p := range devices.Presets() {
			fmt.Fprintf(w, "%-22s %s\n", p.Name, p.Description)
		}
		for _, s := range devices.SystemFamilies() {
			fmt.Fprintf(w, "%-22s %s\n", s.Name+":"+s.Unit+"=N", s.Description)
		}
	case "devices":
		for _, n := range devices.KindNames() {
			k, _ := devices.KindByName(n)
			fmt.Fprintf(w, "%-12s %-12s %7.1f TFLOPS fp32 %7.0f GB/s %6.0f GiB\n", k.Name, k.Class, k.PeakFLOPS/1e12, k.MemBandwidth/1e9, float64(k.Memory)/(1<<30))
		}
	default:
		return fmt.Errorf("list %q: valid: placers, clusters, devices", opts.What)
	}
	return nil
}

// DescribeOptions are describe's arguments and surroundings.
type DescribeOptions struct {
	*Factory
	What, Name string
}

// NewCmdDescribe builds describe; runF, when not nil, replaces describeRun.
func NewCmdDescribe(f *Factory, runF func(*DescribeOptions) error) *cobra.Command {
	opts := &DescribeOptions{Factory: f}
	return &cobra.Command{
		Use:   "describe placer NAME",
		Short: "Describe a placer: what it does and its options (type, default, valid range, doc)",
		Example: `  placesim describe placer m-etf
  placesim compare -w zoo:mlp -c 4xV100-pcie --placers m-etf,heft --opt m-etf.coarsen=true`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.What, opts.Name = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return describeRun(opts)
		},
	}
}

func describeRun(opts *DescribeOptions) error {
	if opts.What != "placer" {
		return fmt.Errorf("describe %q: valid: placer", opts.What)
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	e, err := reg.Entry(opts.Name)
	if err != nil {
		return err
	}
	return placers.Describe(opts.Out, e)
}
