package cli_test

import (
	"regexp"
	"strings"
	"testing"

	"placesim/cmd/placesim/cli"
)

// flagLine is a flag in a --help listing: shorthand, name, type, the rest.
var flagLine = regexp.MustCompile(`^\s+(?:-([A-Za-z]), )?--([a-z0-9-]+)(?: ([a-zA-Z]+))?\s+(.*)$`)

// secondSpellings are names of a concept that already has its flag: the
// number of parallel runs is --workers, the output folder -o/--out, the
// output format --format (--json is a hidden shorthand).
var secondSpellings = map[string]string{
	"jobs": "--workers", "threads": "--workers", "parallel": "--workers", "concurrency": "--workers",
	"json": "--format json", "output": "-o/--out", "outdir": "-o/--out", "output-dir": "-o/--out", "dir": "-o/--out",
}

// noFormat lists the commands without --format, each with the reason the
// flag would be meaningless there (none today: every command prints its
// result on stdout as table, json or csv).
var noFormat = map[string]string{}

// TestOneVocabulary runs every command's --help and fails on a concept
// spelt two ways: a second name for workers, the output folder or the
// output format; -o that is not --out; a --timeout that is not a duration;
// a --format that offers "text" for table; --placers with another default;
// a command without --version, or without --format (but those of
// noFormat).
func TestOneVocabulary(t *testing.T) {
	f, _, _ := testFactory()
	for _, c := range cli.NewCmdRoot(f).Commands() {
		name := c.Name()
		if name == "help" || name == "completion" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			code, out, errs := run(t, name, "--help")
			if code != 0 {
				t.Fatalf("--help: exit %d %s", code, errs)
			}
			seen := map[string]bool{}
			for _, line := range strings.Split(out, "\n") {
				m := flagLine.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				short, flag, typ, help := m[1], m[2], m[3], m[4]
				seen[flag] = true
				if want, bad := secondSpellings[flag]; bad {
					t.Errorf("--%s is a second spelling of %s", flag, want)
				}
				if (short == "o") != (flag == "out") {
					t.Errorf("-%s/--%s: the output folder is -o/--out, and -o nothing else", short, flag)
				}
				if flag == "timeout" && typ != "duration" {
					t.Errorf("--timeout is a %s, want a duration (30s, 10m)", typ)
				}
				if flag == "workers" && typ != "int" {
					t.Errorf("--workers is a %s, want an int", typ)
				}
				if flag == "format" && name != "export" && (!strings.Contains(help, "table") || strings.Contains(help, "text")) {
					t.Errorf("--format: %q, want table|json[|csv] (export's --format is the file's format)", help)
				}
				if flag == "placers" && name != "train" && !strings.Contains(help, `(default "all")`) {
					t.Errorf("--placers: %q, want the default all, as on every command", help)
				}
			}
			if !seen["version"] {
				t.Errorf("no --version")
			}
			if _, exempt := noFormat[name]; !seen["format"] && !exempt {
				t.Errorf("no --format (table|json): every command prints in the one vocabulary, or is listed in noFormat with the reason")
			}
		})
	}
}

// TestFlagNamedOnce: an error a command has already named by its flag
// is not named again by Main (it printed "----layout:", "----workload:",
// "----cluster:" and "----placers:").
func TestFlagNamedOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"train", "-w", "zoo:gpt3-175b", "--layout", "tp=0"}, "--layout: "},
		{[]string{"train", "-w", "zoo:resnet50", "--layout", "tp=8,pp=8"}, "--workload: "},
		{[]string{"train", "-w", "zoo:gpt3-175b", "--layout", "tp=8,pp=8", "-c", "dgx-h100:nodes=0"}, "--cluster: "},
		{[]string{"compare", "-w", "zoo:resnet50", "--placers", "m-etf,nope"}, "--placers: "},
		{[]string{"simulate", "-w", "zoo:gpt3-175b", "--layout", "tp=0,pp=1"}, "--layout: "},
	} {
		code, _, errs := run(t, tc.args...)
		if code == 0 {
			t.Errorf("%v: exit 0, want an error", tc.args)
			continue
		}
		if !strings.Contains(errs, "placesim: "+tc.flag) {
			t.Errorf("%v: stderr %q does not start its message with %q", tc.args, errs, tc.flag)
		}
		if strings.Contains(errs, "----") {
			t.Errorf("%v: a flag named twice: %q", tc.args, errs)
		}
	}
}
