package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/placers"
	"placesim/placers/builtin"
)

func newListCmd() *cobra.Command {
	var withOptions bool
	cmd := &cobra.Command{
		Use:       "list placers|clusters|devices",
		Short:     "List the registered placers (with --options, their options), cluster presets or device kinds",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"placers", "clusters", "devices"},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if withOptions && args[0] != "placers" {
				return fmt.Errorf("--options goes with list placers, not list %s", args[0])
			}
			switch args[0] {
			case "placers":
				reg, err := builtin.NewRegistry()
				if err != nil {
					return err
				}
				for _, e := range reg.Entries() {
					if !withOptions {
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
			case "devices":
				for _, n := range devices.KindNames() {
					k, _ := devices.KindByName(n)
					fmt.Fprintf(w, "%-12s %-12s %7.1f TFLOPS fp32 %7.0f GB/s %6.0f GiB\n", k.Name, k.Class, k.PeakFLOPS/1e12, k.MemBandwidth/1e9, float64(k.Memory)/(1<<30))
				}
			default:
				return fmt.Errorf("list %q: valid: placers, clusters, devices", args[0])
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withOptions, "options", false, "with placers: each placer's options (type, default, valid range, doc)")
	return cmd
}

func newDescribeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "describe placer NAME",
		Short: "Describe a placer: what it does and its options (type, default, valid range, doc)",
		Example: `  placesim describe placer m-etf
  placesim compare -w zoo:mlp -c 4xV100-pcie --placers m-etf,heft --opt m-etf.coarsen=true`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "placer" {
				return fmt.Errorf("describe %q: valid: placer", args[0])
			}
			reg, err := builtin.NewRegistry()
			if err != nil {
				return err
			}
			e, err := reg.Entry(args[1])
			if err != nil {
				return err
			}
			return placers.Describe(cmd.OutOrStdout(), e)
		},
	}
}
