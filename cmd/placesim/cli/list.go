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
	// Format is --format table|json (and its --json shorthand).
	Format formatFlag
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
	opts.Format.register(cmd, " (json: one object, the list under the name asked for)", formatTable, formatJSON)
	return cmd
}

func listRun(opts *ListOptions) error {
	w := opts.Out
	if opts.WithOptions && opts.What != "placers" {
		return fmt.Errorf("--options goes with list placers, not list %s", opts.What)
	}
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	if format == formatJSON {
		return listJSON(opts)
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

// listJSON writes list's facts as one JSON object: {"placers": [...]},
// {"clusters": [...], "systems": [...]} or {"devices": [...]}.
func listJSON(opts *ListOptions) error {
	switch opts.What {
	case "placers":
		reg, err := opts.Registry()
		if err != nil {
			return err
		}
		var ps []placerJSON
		for _, e := range reg.Entries() {
			ps = append(ps, newPlacerJSON(e, opts.WithOptions))
		}
		return writeJSON(opts.Out, struct {
			Placers []placerJSON `json:"placers"`
		}{ps})
	case "clusters":
		type named struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		type system struct {
			Name        string `json:"name"`
			Unit        string `json:"unit"`
			Spelling    string `json:"spelling"`
			Description string `json:"description"`
		}
		v := struct {
			Clusters []named  `json:"clusters"`
			Systems  []system `json:"systems"`
		}{}
		for _, p := range devices.Presets() {
			v.Clusters = append(v.Clusters, named{p.Name, p.Description})
		}
		for _, s := range devices.SystemFamilies() {
			v.Systems = append(v.Systems, system{s.Name, s.Unit, s.Name + ":" + s.Unit + "=N", s.Description})
		}
		return writeJSON(opts.Out, v)
	case "devices":
		// the table's figures in SI units: FLOP/s, B/s, bytes
		type kind struct {
			Name         string  `json:"name"`
			Class        string  `json:"class"`
			PeakFLOPS    float64 `json:"peakFLOPSfp32"`
			MemBandwidth float64 `json:"memBandwidthBytesPerSecond"`
			Memory       int64   `json:"memoryBytes"`
		}
		var ks []kind
		for _, n := range devices.KindNames() {
			k, _ := devices.KindByName(n)
			ks = append(ks, kind{k.Name, string(k.Class), k.PeakFLOPS, k.MemBandwidth, k.Memory})
		}
		return writeJSON(opts.Out, struct {
			Devices []kind `json:"devices"`
		}{ks})
	default:
		return fmt.Errorf("list %q: valid: placers, clusters, devices", opts.What)
	}
}

// placerJSON is a placer as list placers --format json and describe
// placer --format json print it: the facts of placers.Describe.
type placerJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Options is absent from list placers without --options.
	Options *[]optionJSON `json:"options,omitempty"`
}

// optionJSON is one placer option: the columns of placers.Describe.
type optionJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Default  string `json:"default"`
	Required bool   `json:"required"`
	Valid    string `json:"valid"`
	Doc      string `json:"doc"`
	// Names is the local resource the value names (executable,
	// directory, file); such an option is refused in data files.
	Names string `json:"names,omitempty"`
}

func newPlacerJSON(e placers.Entry, withOptions bool) placerJSON {
	p := placerJSON{Name: e.Name, Description: e.Description}
	if !withOptions {
		return p
	}
	list := []optionJSON{}
	for _, o := range e.Options {
		list = append(list, optionJSON{Name: o.Name, Type: string(o.Type), Default: o.Default, Required: o.Required, Valid: o.Range(), Doc: o.Doc, Names: string(o.Resource)})
	}
	p.Options = &list
	return p
}

// DescribeOptions are describe's arguments and surroundings.
type DescribeOptions struct {
	*Factory
	What, Name string
	// Format is --format table|json (and its --json shorthand).
	Format formatFlag
}

// NewCmdDescribe builds describe; runF, when not nil, replaces describeRun.
func NewCmdDescribe(f *Factory, runF func(*DescribeOptions) error) *cobra.Command {
	opts := &DescribeOptions{Factory: f}
	cmd := &cobra.Command{
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
	opts.Format.register(cmd, " (json: one object, the placer and its options)", formatTable, formatJSON)
	return cmd
}

func describeRun(opts *DescribeOptions) error {
	if opts.What != "placer" {
		return fmt.Errorf("describe %q: valid: placer", opts.What)
	}
	format, err := opts.Format.resolve()
	if err != nil {
		return err
	}
	reg, err := opts.Registry()
	if err != nil {
		return err
	}
	e, err := reg.Entry(opts.Name)
	if err != nil {
		return err
	}
	if format == formatJSON {
		return writeJSON(opts.Out, newPlacerJSON(e, true))
	}
	return placers.Describe(opts.Out, e)
}
