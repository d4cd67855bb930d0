package placers_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"placesim/placers"
)

// growArgs is a test placer's options. Its Retries option is the one the
// test adds: a field and its one line in Declare, nothing else.
type growArgs struct {
	Depth   int
	Retries int
}

func (a *growArgs) Declare(d *placers.Decls) {
	d.Int(&a.Depth, "depth", 4, 1, 16, "search depth")
	d.Int(&a.Retries, "retries", 3, 0, 9, "retries after a failed search") // the added option
}

// Validate implements placers.Validator: a cross-field rule.
func (a *growArgs) Validate() error {
	if a.Retries > a.Depth {
		return errors.New("retries must not exceed depth")
	}
	return nil
}

// TestAddingAnOptionIsOneDeclaration declares an option on a test placer
// and sees it decoded, validated, defaulted and listed by the registry
// without another line anywhere.
func TestAddingAnOptionIsOneDeclaration(t *testing.T) {
	t.Parallel()
	r := placers.NewRegistry()
	if err := r.Add(placers.Define("grow", "a test placer", factory[growArgs]("grow"))); err != nil {
		t.Fatal(err)
	}
	t.Run("defaulted", func(t *testing.T) {
		p, err := r.New("grow", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.(*recorder).args, (growArgs{Depth: 4, Retries: 3}); got != want {
			t.Errorf("factory got %+v, want %+v", got, want)
		}
	})
	t.Run("decoded", func(t *testing.T) {
		p, err := r.New("grow", placers.Options{"grow.retries": "1", "depth": "9"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := p.(*recorder).args, (growArgs{Depth: 9, Retries: 1}); got != want {
			t.Errorf("factory got %+v, want %+v", got, want)
		}
	})
	for _, tc := range []struct {
		name   string
		opts   placers.Options
		errHas []string
	}{
		{"out of range", placers.Options{"retries": "10"}, []string{"placer grow", `retries="10"`, "integer in [0, 9]"}},
		{"not an integer", placers.Options{"retries": "two"}, []string{"placer grow", `retries="two"`, "integer in [0, 9]"}},
		{"misspelt", placers.Options{"retires": "1"}, []string{"placer grow", `"retires"`, "did you mean retries?", "valid: depth, retries"}},
		{"validated", placers.Options{"retries": "5", "depth": "2"}, []string{"placer grow", "retries must not exceed depth"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.New("grow", tc.opts)
			if err == nil {
				t.Fatalf("New(grow, %v) succeeded, want an error", tc.opts)
			}
			if !errors.Is(err, placers.ErrBadOption) {
				t.Errorf("error %q does not wrap ErrBadOption", err)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
	t.Run("listed", func(t *testing.T) {
		e, err := r.Entry("grow")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := placers.Describe(&b, e); err != nil {
			t.Fatal(err)
		}
		line := ""
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "retries ") {
				line = l
			}
		}
		for _, s := range []string{"int", "3", "integer in [0, 9]", "retries after a failed search"} {
			if !strings.Contains(line, s) {
				t.Errorf("describe's line for retries %q does not contain %q:\n%s", line, s, b.String())
			}
		}
		if md := placers.MarkdownTable(r); !strings.Contains(md, "`retries`=3") {
			t.Errorf("README table does not list retries=3:\n%s", md)
		}
	})
}

func TestDecodeAndDefaults(t *testing.T) {
	t.Parallel()
	if got, want := placers.Defaults[growArgs](), (growArgs{Depth: 4, Retries: 3}); got != want {
		t.Errorf("Defaults = %+v, want %+v", got, want)
	}
	got, err := placers.Decode[cArgs]("", placers.Options{"file": "in.json", "dims": "q,p"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"q", "p"}; !reflect.DeepEqual(got.Dims, want) {
		t.Errorf("dims = %v, want %v", got.Dims, want)
	}
	if _, err := placers.Decode[cArgs]("", placers.Options{"c.file": "in.json"}); err == nil {
		t.Error("a qualified key decoded without a placer name")
	}
	// Check accepts exactly what the binding decodes
	e := placers.Define("c", "c", factory[cArgs]("c"))
	for _, o := range e.Options {
		for _, v := range []string{"", "0", "1", "45s", "2m", "p", "p,q", "q,q", "NaN", "true", "-1"} {
			checkErr := o.Check(v)
			opts := placers.Options{o.Name: v}
			if o.Name != "file" {
				opts["file"] = "f"
			}
			_, decodeErr := placers.Decode[cArgs]("c", opts)
			if (checkErr == nil) != (decodeErr == nil) {
				t.Errorf("%s=%q: Check says %v, Decode %v", o.Name, v, checkErr, decodeErr)
			}
		}
	}
}
