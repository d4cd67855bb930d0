package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"placesim/devices"
	"placesim/placers/builtin"
)

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "list placers|clusters|devices",
		Short:     "List the registered placers, cluster presets or device kinds",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"placers", "clusters", "devices"},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			switch args[0] {
			case "placers":
				reg, err := builtin.NewRegistry()
				if err != nil {
					return err
				}
				for _, e := range reg.Entries() {
					fmt.Fprintf(w, "%-24s %s\n", e.Name, e.Description)
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
}
