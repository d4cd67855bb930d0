package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListDescribeJSON checks that list and describe's --format json
// carries the same facts as their tables: every name the table lists, and
// a placer's options with their valid ranges.
func TestListDescribeJSON(t *testing.T) {
	for _, what := range []string{"placers", "clusters", "devices"} {
		code, table, errs := run(t, "list", what)
		if code != 0 {
			t.Fatalf("list %s: exit %d %s", what, code, errs)
		}
		code, out, errs := run(t, "list", what, "--format", "json")
		var v map[string][]struct{ Name string }
		if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
			t.Fatalf("list %s --format json: exit %d %v\n%s%s", what, code, err, out, errs)
		}
		var names []string
		for _, items := range v {
			for _, it := range items {
				names = append(names, it.Name)
			}
		}
		lines := strings.Split(strings.TrimSpace(table), "\n")
		if len(names) != len(lines) || len(names) == 0 {
			t.Fatalf("list %s: %d names in json, %d lines in the table", what, len(names), len(lines))
		}
		for _, n := range names {
			if !strings.Contains(table, n) {
				t.Errorf("list %s: json names %q, the table does not", what, n)
			}
		}
	}

	code, table, _ := run(t, "describe", "placer", "m-etf")
	code2, out, errs := run(t, "describe", "placer", "m-etf", "--json")
	var p struct {
		Name    string
		Options []struct{ Name, Type, Valid string }
	}
	if err := json.Unmarshal([]byte(out), &p); code != 0 || code2 != 0 || err != nil || p.Name != "m-etf" || len(p.Options) == 0 {
		t.Fatalf("describe --json: exit %d/%d %v %+v\n%s", code, code2, err, p, errs)
	}
	for _, o := range p.Options {
		if !strings.Contains(table, o.Name) || !strings.Contains(table, o.Valid) {
			t.Errorf("describe: option %+v in json, not in the table", o)
		}
	}
	if code, _, errs := run(t, "list", "placers", "--format", "yaml"); code == 0 || !strings.Contains(errs, "valid: table, json") {
		t.Errorf("list --format yaml: exit %d %s, want an error naming the valid formats", code, errs)
	}
}
