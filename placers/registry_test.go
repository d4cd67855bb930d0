package placers_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"placesim/engine"
	"placesim/placers"
)

// recorder is a placer that keeps the typed options its factory was
// given.
type recorder struct {
	name string
	args any
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Place(context.Context, *placers.Request) (*engine.Plan, error) {
	return nil, errors.New("not a real placer")
}

// factory is a typed factory that records its Args.
func factory[A any](name string) func(A) (placers.Placer, error) {
	return func(a A) (placers.Placer, error) { return &recorder{name: name, args: a}, nil }
}

type aArgs struct {
	Coarsen bool
	Range   int
}

func (x *aArgs) Declare(d *placers.Decls) {
	d.Bool(&x.Coarsen, "coarsen", false, "coarsen")
	d.Int(&x.Range, "range", 200, 1, 1000, "range")
}

type bArgs struct {
	Coarsen bool
	Mode    string
	Solver  string
}

func (x *bArgs) Declare(d *placers.Decls) {
	d.Bool(&x.Coarsen, "coarsen", true, "coarsen")
	placers.DeclareEnum(d, &x.Mode, "mode", "x", []string{"x", "y"}, "mode")
	d.Path(&x.Solver, "solver", placers.Executable, "", "solver binary")
}

type cArgs struct {
	File  string
	Limit time.Duration
	Dims  []string
	Frac  float64
}

func (x *cArgs) Declare(d *placers.Decls) {
	d.Path(&x.File, "file", placers.InputFile, "", "input").Require()
	d.Duration(&x.Limit, "limit", 30*time.Second, time.Second, time.Minute, "limit")
	placers.DeclareList(d, &x.Dims, "dims", []string{"p", "q"}, []string{"p", "q"}, "dims")
	d.Float(&x.Frac, "frac", 0.5, 0, 1, "frac")
}

func testRegistry(t *testing.T) *placers.Registry {
	t.Helper()
	r := placers.NewRegistry()
	if err := r.AddAll(
		placers.Define("a", "a", factory[aArgs]("a")),
		placers.Define("b", "b", factory[bArgs]("b")),
		placers.Define("c", "c", factory[cArgs]("c")),
	); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRegistryAddAll: AddAll adds its entries in turn and stops at the
// first refused one (a duplicate), keeping those before it.
func TestRegistryAddAll(t *testing.T) {
	t.Parallel()
	r := placers.NewRegistry()
	err := r.AddAll(
		placers.Define("a", "a", factory[aArgs]("a")),
		placers.Define("a", "a again", factory[aArgs]("a")),
		placers.Define("b", "b", factory[bArgs]("b")),
	)
	if !errors.Is(err, placers.ErrDuplicate) {
		t.Fatalf("AddAll with a duplicate: %v, want ErrDuplicate", err)
	}
	if got := r.Names(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("registered %v, want [a] (the entries before the duplicate)", got)
	}
}

func TestRegistryNewFillsDefaultsAndRefusesBadInput(t *testing.T) {
	t.Parallel()
	r := testRegistry(t)
	tests := []struct {
		name, placer string
		opts         placers.Options
		want         any // nil: an error
		errHas       []string
	}{
		{name: "defaults", placer: "a", want: aArgs{Coarsen: false, Range: 200}},
		{name: "given", placer: "a", opts: placers.Options{"range": "7"}, want: aArgs{Coarsen: false, Range: 7}},
		{name: "qualified for itself", placer: "a", opts: placers.Options{"a.coarsen": "true"}, want: aArgs{Coarsen: true, Range: 200}},
		{name: "no default left unset", placer: "b", want: bArgs{Coarsen: true, Mode: "x"}},
		{name: "misspelt key", placer: "a", opts: placers.Options{"coarsne": "true"}, errHas: []string{`"coarsne"`, "did you mean coarsen?", "valid: coarsen, range"}},
		{name: "far key, no suggestion", placer: "a", opts: placers.Options{"zzzzzzzz": "1"}, errHas: []string{`"zzzzzzzz"`, "valid: coarsen, range"}},
		{name: "qualified for another", placer: "a", opts: placers.Options{"b.coarsen": "true"}, errHas: []string{"b.coarsen", "for placer b"}},
		{name: "int out of range", placer: "a", opts: placers.Options{"range": "0"}, errHas: []string{`range="0"`, "integer in [1, 1000]"}},
		{name: "int not a number", placer: "a", opts: placers.Options{"range": "2e2"}, errHas: []string{`range="2e2"`}},
		{name: "bad bool", placer: "a", opts: placers.Options{"coarsen": "yes"}, errHas: []string{`coarsen="yes"`, "true or false"}},
		{name: "bad enum", placer: "b", opts: placers.Options{"mode": "z"}, errHas: []string{`mode="z"`, "one of: x, y"}},
		{name: "required missing", placer: "c", errHas: []string{"needs option file"}},
		{name: "duration", placer: "c", opts: placers.Options{"file": "f", "limit": "45"}, want: cArgs{File: "f", Limit: 45 * time.Second, Dims: []string{"p", "q"}, Frac: 0.5}},
		{name: "duration as duration", placer: "c", opts: placers.Options{"file": "f", "limit": "1m", "dims": "q", "frac": "1"}, want: cArgs{File: "f", Limit: time.Minute, Dims: []string{"q"}, Frac: 1}},
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
			if got := p.(*recorder).args; !reflect.DeepEqual(got, tc.want) {
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

type twiceArgs struct{ A, B bool }

func (x *twiceArgs) Declare(d *placers.Decls) {
	d.Bool(&x.A, "k", false, "k")
	d.Bool(&x.B, "k", false, "k")
}

type undocumentedArgs struct{ A bool }

func (x *undocumentedArgs) Declare(d *placers.Decls) { d.Bool(&x.A, "k", false, "") }

type defaultOutOfRangeArgs struct{ N int }

func (x *defaultOutOfRangeArgs) Declare(d *placers.Decls) { d.Int(&x.N, "k", 5, 0, 4, "k") }

type noValuesArgs struct{ S string }

func (x *noValuesArgs) Declare(d *placers.Decls) { placers.DeclareEnum(d, &x.S, "k", "", nil, "k") }

type badNameArgs struct{ S string }

func (x *badNameArgs) Declare(d *placers.Decls) { d.String(&x.S, "a=b", "", "k") }

func TestRegistryRefusesBadDeclarations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    placers.Entry
	}{
		{"empty name", placers.Define("", "", factory[aArgs]("x"))},
		{"dot in name", placers.Define("x.y", "", factory[aArgs]("x"))},
		{"no factory", placers.Entry{Name: "x"}},
		{"option twice", placers.Define("x", "", factory[twiceArgs]("x"))},
		{"option without doc", placers.Define("x", "", factory[undocumentedArgs]("x"))},
		{"default out of range", placers.Define("x", "", factory[defaultOutOfRangeArgs]("x"))},
		{"enum without values", placers.Define("x", "", factory[noValuesArgs]("x"))},
		{"bad option name", placers.Define("x", "", factory[badNameArgs]("x"))},
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
	if err := r.Add(placers.Define("a", "again", factory[aArgs]("a"))); !errors.Is(err, placers.ErrDuplicate) {
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
