package placers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Args is a placer's options as one typed struct, in the manner of a
// kube-scheduler plugin's Args (plugins/noderesources' fit args with their
// defaults and validation) or gonum's optimize.Settings. Its Declare
// method binds each field to its option, once: the key, the default, the
// valid range and a one-line doc. The registry decodes option text
// (--opt key=value, a scenario file's placerOptions) into a fresh value
// through these bindings, once, and the placer's factory receives the
// struct, never text. Adding an option is one field and its one line in
// Declare: decoding, defaults, range checks, "did you mean", `list
// placers`, `describe placer` and the README's table follow from it.
//
// Declare is called on a zero value and must set every field it binds to
// its default (the Decls methods do), bind only fields of the receiver,
// and do nothing else.
type Args interface {
	Declare(d *Decls)
}

// Validator is implemented by an Args whose fields constrain one another;
// Validate runs after every option has been decoded and its range checked,
// and its error names the options involved.
type Validator interface {
	Validate() error
}

// NoArgs is the Args of a placer without options: any key given is
// refused.
type NoArgs struct{}

// Declare implements Args: no options.
func (*NoArgs) Declare(*Decls) {}

// argsPtr is the constraint of Define and Typed: a pointer to an Args
// struct A.
type argsPtr[A any] interface {
	*A
	Args
}

// Decls collects the declarations of an Args value's options and binds
// each to its field.
type Decls struct {
	opts []*Option
	set  map[string]func(string) error
}

func (d *Decls) add(o Option, set func(string) error) *Option {
	if d.set == nil {
		d.set = map[string]func(string) error{}
	}
	p := &o
	d.opts = append(d.opts, p)
	// a name declared twice keeps its first binding here and is refused by
	// validateDecls when the entry is registered
	if _, dup := d.set[o.Name]; !dup {
		d.set[o.Name] = set
	}
	return p
}

// Options returns the declarations in the order they were made.
func (d *Decls) Options() []Option {
	out := make([]Option, len(d.opts))
	for i, o := range d.opts {
		out[i] = *o
	}
	return out
}

// Bool declares a true|false option bound to p, default def.
func (d *Decls) Bool(p *bool, name string, def bool, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: Bool, Default: strconv.FormatBool(def), Doc: doc}
	return d.add(o, func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o.bad(v)
		}
		*p = b
		return nil
	})
}

// Int declares an integer option in [min, max] bound to p, default def.
func (d *Decls) Int(p *int, name string, def, min, max int, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: Int, Default: strconv.Itoa(def), Min: float64(min), Max: float64(max), Doc: doc}
	return d.add(o, func(v string) error {
		n, ok := o.parseInt(v)
		if !ok {
			return o.bad(v)
		}
		*p = int(n)
		return nil
	})
}

// Float declares a finite number option in [min, max] bound to p, default
// def.
func (d *Decls) Float(p *float64, name string, def, min, max float64, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: Float, Default: strconv.FormatFloat(def, 'g', -1, 64), Min: min, Max: max, Doc: doc}
	return d.add(o, func(v string) error {
		f, ok := o.parseFloat(v)
		if !ok {
			return o.bad(v)
		}
		*p = f
		return nil
	})
}

// Duration declares a duration option in [min, max] bound to p, default
// def; a value is a Go duration ("45s", "4m") or a number of seconds.
func (d *Decls) Duration(p *time.Duration, name string, def, min, max time.Duration, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: Duration, Default: def.String(), Min: min.Seconds(), Max: max.Seconds(), Doc: doc}
	return d.add(o, func(v string) error {
		s, ok := o.parseSeconds(v)
		if !ok {
			return o.bad(v)
		}
		*p = time.Duration(s * float64(time.Second))
		return nil
	})
}

// String declares a text option bound to p, default def ("" for none).
func (d *Decls) String(p *string, name, def, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: String, Default: def, Doc: doc}
	return d.add(o, func(v string) error { *p = v; return nil })
}

// Path declares an option whose value names a local resource (a program
// run, a directory written, a file read) bound to p, default def ("" for
// none); an empty value is refused, and so is the key in a data file
// someone else wrote (Registry.LocalOptions).
func (d *Decls) Path(p *string, name string, res Resource, def, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: String, Default: def, Doc: doc, Resource: res}
	return d.add(o, func(v string) error {
		if v == "" {
			return o.bad(v)
		}
		*p = v
		return nil
	})
}

// Require marks o as required: a placer cannot run without it.
func (o *Option) Require() *Option {
	o.Required = true
	return o
}

// DeclareEnum declares an option bound to p whose value is one of values,
// default def.
func DeclareEnum[T ~string](d *Decls, p *T, name string, def T, values []T, doc string) *Option {
	*p = def
	o := Option{Name: name, Type: Enum, Default: string(def), Values: texts(values), Doc: doc}
	return d.add(o, func(v string) error {
		if !contains(o.Values, v) {
			return o.bad(v)
		}
		*p = T(v)
		return nil
	})
}

// DeclareList declares an option bound to p whose value is a
// comma-separated list of values, none repeated, default def.
func DeclareList[T ~string](d *Decls, p *[]T, name string, def []T, values []T, doc string) *Option {
	*p = append([]T(nil), def...)
	o := Option{Name: name, Type: List, Default: strings.Join(texts(def), ","), Values: texts(values), Doc: doc}
	return d.add(o, func(v string) error {
		xs, ok := o.parseList(v)
		if !ok {
			return o.bad(v)
		}
		out := make([]T, len(xs))
		for i, x := range xs {
			out[i] = T(x)
		}
		*p = out
		return nil
	})
}

func texts[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// Declarations returns the options A declares, sorted by name.
func Declarations[A any, PA argsPtr[A]]() []Option {
	var a A
	d := &Decls{}
	PA(&a).Declare(d)
	o := d.Options()
	sort.Slice(o, func(i, j int) bool { return o[i].Name < o[j].Name })
	return o
}

// Decode returns A with every option in opts decoded into its field, every
// other field at its default, after A's Validate when it has one. An
// unknown key is an error that lists the valid keys and suggests the
// nearest; a bad value one that names the option, the value and the valid
// range; a required option not given one that names it. Keys may be
// qualified by placer (placer.key) when placer is not "".
func Decode[A any, PA argsPtr[A]](placer string, opts Options) (A, error) {
	var a A
	d := &Decls{}
	PA(&a).Declare(d)
	what := placer
	if what == "" {
		what = fmt.Sprintf("%T", a)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first bad key in name order is the one reported
	given := map[string]bool{}
	for _, k := range keys {
		v, key := opts[k], k
		if p, rest, ok := strings.Cut(k, "."); ok {
			if placer == "" || p != placer {
				return a, fmt.Errorf("%w: option %q is for placer %s, not %s", ErrBadOption, k, p, what)
			}
			key = rest
		}
		set, ok := d.set[key]
		if !ok {
			return a, unknownKey(key, optionNames(d.Options()), what)
		}
		if err := set(v); err != nil {
			return a, err
		}
		given[key] = true
	}
	for _, o := range d.opts {
		if o.Required && !given[o.Name] {
			return a, fmt.Errorf("%w: %s needs option %s (%s: %s)", ErrBadOption, what, o.Name, o.Range(), o.Doc)
		}
	}
	if v, ok := any(PA(&a)).(Validator); ok {
		if err := v.Validate(); err != nil {
			return a, fmt.Errorf("%w: %s: %v", ErrBadOption, what, err)
		}
	}
	return a, nil
}

// Defaults returns A with every option at its default.
func Defaults[A any, PA argsPtr[A]]() A {
	var a A
	PA(&a).Declare(&Decls{})
	return a
}

// Factory makes a placer from option text: it decodes the text into the
// placer's Args once (Decode) and calls the placer's typed factory. Define
// and Typed make one; a placer package never writes one by hand.
type Factory func(opts Options) (Placer, error)

// Typed returns the Factory that decodes option text into f's Args
// (unqualified keys only) and calls f with them: what the registry does
// for a defined placer, for tests and callers without a registry.
func Typed[A any, PA argsPtr[A]](f func(A) (Placer, error)) Factory {
	return func(opts Options) (Placer, error) {
		a, err := Decode[A, PA]("", opts)
		if err != nil {
			return nil, err
		}
		return f(a)
	}
}

// Define returns the registry entry of a placer whose factory f takes its
// typed options A: its declarations come from A's Declare, and the entry's
// New decodes option text into A once and calls f.
func Define[A any, PA argsPtr[A]](name, description string, f func(A) (Placer, error)) Entry {
	return Entry{Name: name, Description: description, Options: Declarations[A, PA](),
		check: func(opts Options) error {
			_, err := Decode[A, PA](name, opts)
			return err
		},
		make: func(opts Options) (Placer, error) {
			a, err := Decode[A, PA](name, opts)
			if err != nil {
				return nil, err
			}
			return f(a)
		}}
}
