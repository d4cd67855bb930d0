package placers_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"placesim/engine"
	"placesim/placers"
)

// recorder is a placer that keeps the options its factory was given.
type recorder struct {
	name string
	opts placers.Options
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Place(context.Context, *placers.Request) (*engine.Plan, error) {
	return nil, errors.New("not a real placer")
}

func factory(name string) placers.Factory {
	return func(o placers.Options) (placers.Placer, error) { return &recorder{name: name, opts: o}, nil }
}

func testRegistry(t *testing.T) *placers.Registry {
	t.Helper()
	r := placers.NewRegistry()
	for _, e := range []placers.Entry{
		{Name: "a", Description: "a", New: factory("a"), Options: []placers.Option{
			{Name: "coarsen", Type: placers.Bool, Default: "false", Doc: "coarsen"},
			{Name: "range", Type: placers.Int, Default: "200", Min: 1, Max: 1000, Doc: "range"},
		}},
		{Name: "b", Description: "b", New: factory("b"), Options: []placers.Option{
			{Name: "coarsen", Type: placers.Bool, Default: "true", Doc: "coarsen"},
			{Name: "mode", Type: placers.Enum, Default: "x", Values: []string{"x", "y"}, Doc: "mode"},
			{Name: "solver", Type: placers.String, Resource: placers.Executable, Doc: "solver binary"},
		}},
		{Name: "c", Description: "c", New: factory("c"), Options: []placers.Option{
			{Name: "file", Type: placers.String, Resource: placers.InputFile, Required: true, Doc: "input"},
			{Name: "limit", Type: placers.Duration, Default: "30s", Min: 1, Max: 60, Doc: "limit"},
			{Name: "dims", Type: placers.List, Default: "p,q", Values: []string{"p", "q"}, Doc: "dims"},
			{Name: "frac", Type: placers.Float, Default: "0.5", Min: 0, Max: 1, Doc: "frac"},
		}},
	} {
		if err := r.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestRegistryNewFillsDefaultsAndRefusesBadInput(t *testing.T) {
	t.Parallel()
	r := testRegistry(t)
	tests := []struct {
		name, placer string
		opts         placers.Options
		want         placers.Options // nil: an error
		errHas       []string
	}{
		{name: "defaults", placer: "a", want: placers.Options{"coarsen": "false", "range": "200"}},
		{name: "given", placer: "a", opts: placers.Options{"range": "7"}, want: placers.Options{"coarsen": "false", "range": "7"}},
		{name: "qualified for itself", placer: "a", opts: placers.Options{"a.coarsen": "true"}, want: placers.Options{"coarsen": "true", "range": "200"}},
		{name: "no default left unset", placer: "b", want: placers.Options{"coarsen": "true", "mode": "x"}},
		{name: "misspelt key", placer: "a", opts: placers.Options{"coarsne": "true"}, errHas: []string{`"coarsne"`, "did you mean coarsen?", "valid: coarsen, range"}},
		{name: "far key, no suggestion", placer: "a", opts: placers.Options{"zzzzzzzz": "1"}, errHas: []string{`"zzzzzzzz"`, "valid: coarsen, range"}},
		{name: "qualified for another", placer: "a", opts: placers.Options{"b.coarsen": "true"}, errHas: []string{"b.coarsen", "for placer b"}},
		{name: "int out of range", placer: "a", opts: placers.Options{"range": "0"}, errHas: []string{`range="0"`, "integer in [1, 1000]"}},
		{name: "int not a number", placer: "a", opts: placers.Options{"range": "2e2"}, errHas: []string{`range="2e2"`}},
		{name: "bad bool", placer: "a", opts: placers.Options{"coarsen": "yes"}, errHas: []string{`coarsen="yes"`, "true or false"}},
		{name: "bad enum", placer: "b", opts: placers.Options{"mode": "z"}, errHas: []string{`mode="z"`, "one of: x, y"}},
		{name: "required missing", placer: "c", errHas: []string{"needs option file"}},
		{name: "duration", placer: "c", opts: placers.Options{"file": "f", "limit": "45"}, want: placers.Options{"file": "f", "limit": "45", "dims": "p,q", "frac": "0.5"}},
		{name: "duration out of range", placer: "c", opts: placers.Options{"file": "f", "limit": "2m"}, errHas: []string{`limit="2m"`}},
		{name: "list repeat", placer: "c", opts: placers.Options{"file": "f", "dims": "p,p"}, errHas: []string{`dims="p,p"`}},
		{name: "list unknown", placer: "c", opts: placers.Options{"file": "f", "dims": "r"}, errHas: []string{`dims="r"`, "p, q"}},
		{name: "float NaN", placer: "c", opts: placers.Options{"file": "f", "frac": "NaN"}, errHas: []string{`frac="NaN"`, "number in [0, 1]"}},
		{name: "empty path", placer: "c", opts: placers.Options{"file": ""}, errHas: []string{`file=""`}},
		{name: "unknown placer", placer: "d", errHas: []string{"unknown placer", `"d"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := r.New(tc.placer, tc.opts)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("New(%s, %v) succeeded, want an error", tc.placer, tc.opts)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				if tc.placer != "d" && !errors.Is(err, placers.ErrBadOption) {
					t.Errorf("error %q does not wrap ErrBadOption", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*recorder).opts; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("factory got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRegistryResolve(t *testing.T) {
	t.Parallel()
	r := testRegistry(t)
	tests := []struct {
		name   string
		names  []string
		opts   placers.Options
		want   map[string]placers.Options
		errHas []string
	}{
		{name: "unqualified to every placer that has it", names: []string{"a", "b", "c"}, opts: placers.Options{"coarsen": "true"},
			want: map[string]placers.Options{"a": {"coarsen": "true"}, "b": {"coarsen": "true"}, "c": {}}},
		{name: "qualified to one", names: []string{"a", "b"}, opts: placers.Options{"a.coarsen": "true"},
			want: map[string]placers.Options{"a": {"coarsen": "true"}, "b": {}}},
		{name: "qualified wins", names: []string{"a", "b"}, opts: placers.Options{"coarsen": "true", "b.coarsen": "false"},
			want: map[string]placers.Options{"a": {"coarsen": "true"}, "b": {"coarsen": "false"}}},
		{name: "none has it", names: []string{"a", "b"}, opts: placers.Options{"coarsne": "true"},
			errHas: []string{`"coarsne"`, "did you mean coarsen?", "a, b"}},
		{name: "key of a placer not run", names: []string{"a"}, opts: placers.Options{"mode": "x"},
			errHas: []string{`"mode"`, "valid: coarsen, range"}},
		{name: "qualified unknown key", names: []string{"a", "b"}, opts: placers.Options{"b.rnage": "3"},
			errHas: []string{`"rnage"`, "for b", "valid: coarsen, mode, solver"}},
		{name: "qualified placer not run", names: []string{"a"}, opts: placers.Options{"b.mode": "y"},
			errHas: []string{"b.mode", "not among the placers run (a)"}},
		{name: "qualified unknown placer", names: []string{"a"}, opts: placers.Options{"q.mode": "y"},
			errHas: []string{"unknown placer", `"q"`}},
		{name: "bad value for one", names: []string{"a", "b"}, opts: placers.Options{"coarsen": "maybe"},
			errHas: []string{`coarsen="maybe"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := r.Resolve(tc.names, tc.opts)
			if tc.want == nil {
				if err == nil {
					t.Fatalf("Resolve(%v, %v) = %v, want an error", tc.names, tc.opts, got)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Resolve = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRegistryRefusesBadDeclarations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    placers.Entry
	}{
		{"empty name", placers.Entry{New: factory("x")}},
		{"dot in name", placers.Entry{Name: "x.y", New: factory("x")}},
		{"nil factory", placers.Entry{Name: "x"}},
		{"option twice", placers.Entry{Name: "x", New: factory("x"), Options: []placers.Option{
			{Name: "k", Type: placers.Bool, Doc: "k"}, {Name: "k", Type: placers.Int, Doc: "k"}}}},
		{"option without doc", placers.Entry{Name: "x", New: factory("x"), Options: []placers.Option{{Name: "k", Type: placers.Bool}}}},
		{"option without type", placers.Entry{Name: "x", New: factory("x"), Options: []placers.Option{{Name: "k", Doc: "k"}}}},
		{"default out of range", placers.Entry{Name: "x", New: factory("x"), Options: []placers.Option{
			{Name: "k", Type: placers.Int, Default: "5", Min: 0, Max: 4, Doc: "k"}}}},
		{"enum without values", placers.Entry{Name: "x", New: factory("x"), Options: []placers.Option{
			{Name: "k", Type: placers.Enum, Doc: "k"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := placers.NewRegistry().Add(tc.e); err == nil {
				t.Errorf("Add(%+v) succeeded, want an error", tc.e)
			}
		})
	}
	r := testRegistry(t)
	if err := r.Register("a", "again", factory("a")); !errors.Is(err, placers.ErrDuplicate) {
		t.Errorf("second a: %v, want ErrDuplicate", err)
	}
	if err := r.Merge(testRegistry(t)); !errors.Is(err, placers.ErrDuplicate) {
		t.Errorf("merge of the same names: %v, want ErrDuplicate", err)
	}
}

func TestRegistryLocalOptions(t *testing.T) {
	t.Parallel()
	r := testRegistry(t)
	for name, want := range map[string][]string{"a": nil, "b": {"solver"}, "c": {"file"}, "unknown": nil} {
		if got := r.LocalOptions(name); !reflect.DeepEqual(got, want) {
			t.Errorf("LocalOptions(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	cands := []string{"coarsen", "range", "memfrac", "priorities"}
	for in, want := range map[string]string{
		"coarsne": "coarsen", "corasen": "coarsen", "coarse": "coarsen", "rnage": "range",
		"memfac": "memfrac", "priorites": "priorities", "window": "", "": "",
	} {
		if got := placers.Suggest(in, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
