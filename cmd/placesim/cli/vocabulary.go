package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"placesim/study"
)

// The one vocabulary of the commands: one flag per concept, everywhere.
// TestOneVocabulary runs every command's --help against it.
const (
	// formatTable, formatJSON and formatCSV are --format's values.
	formatTable = "table"
	formatJSON  = "json"
	formatCSV   = "csv"
)

// placersAll is --placers' default on every command that runs several
// placers: every registered placer that needs no options.
const placersAll = "all"

// placersHelp documents --placers.
const placersHelp = "comma-separated placer names, or all: every placer that needs no options (placesim list placers)"

// formatFlag is --format table|json[|csv], with --json kept as a hidden
// shorthand for --format json and "text" read as table (the name some
// commands used).
type formatFlag struct {
	format string
	json   bool
	valid  []string
}

// register adds --format (valid: the formats the command prints) and the
// hidden --json to cmd.
func (f *formatFlag) register(cmd *cobra.Command, what string, valid ...string) {
	f.valid = valid
	cmd.Flags().StringVar(&f.format, "format", formatTable, "output format on stdout: "+strings.Join(valid, ", ")+what)
	cmd.Flags().BoolVar(&f.json, "json", false, "shorthand for --format json")
	_ = cmd.Flags().MarkHidden("json")
}

// resolve is the format asked for, checked.
func (f *formatFlag) resolve() (string, error) {
	format := f.format
	if format == "text" {
		format = formatTable
	}
	if f.json {
		if format != formatTable && format != formatJSON {
			return "", fmt.Errorf("--json and --format %s exclude each other (--json is --format json)", f.format)
		}
		format = formatJSON
	}
	if !slices.Contains(f.valid, format) {
		return "", fmt.Errorf("--format %q (valid: %s)", f.format, strings.Join(f.valid, ", "))
	}
	return format, nil
}

// apply resolves the format into a command's JSON switch.
func (f *formatFlag) apply(json *bool) error {
	format, err := f.resolve()
	if err != nil {
		return err
	}
	*json = format == formatJSON
	return nil
}

// flagNamed is err with a study.FieldError's field called by the flag
// the person typed (names: field -> flag, e.g. "replicas" ->
// "--data-parallel" or "dp:N in --regimes"); other errors, and errors a
// command has named already, are unchanged (naming twice would turn
// "--workload" into "----workload").
func flagNamed(err error, names map[string]string) error {
	var fe *study.FieldError
	var named *renamedError
	if err == nil || errors.As(err, &named) || !errors.As(err, &fe) {
		return err
	}
	name, ok := names[fe.Field]
	if !ok {
		return err
	}
	return &renamedError{msg: strings.Replace(err.Error(), fe.Error(), fe.Named(name), 1), err: err}
}

// renamedError is an error whose message names a flag for a field.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// commonFlagNames maps the request fields that every command takes from
// the same flag to it; Main names by them a study.FieldError that its
// command left unnamed.
var commonFlagNames = map[string]string{
	"workload": "--workload", "cluster": "--cluster", "out": "--out", "explain": "--explain",
	"shards": "--shard i/N", "schedule": "--pipeline", "placer": "--placer", "placers": "--placers",
	"placer options": "--opt", "layout": "--layout",
}

// regimeFlagNames maps the request's fields to the flags that gave them:
// the regime's replicas to --regimes or --data-parallel, as typed, and
// the placers, their options and the detailed run to --placers, --opt and
// --gantt.
func regimeFlagNames(changed func(string) bool) map[string]string {
	names := map[string]string{"replicas": "--data-parallel", "placers": "--placers", "placer options": "--opt", "gantt": "--gantt"}
	if changed != nil && changed("regimes") {
		names["replicas"] = "dp:N in --regimes, N"
	}
	return names
}
