package placers

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"placesim/internal/suggest"
)

// OptionType is the type of a placer option's value.
type OptionType string

// The option types. A value is always given as text (--opt key=value, a
// scenario file's placerOptions); the type says how it is parsed.
const (
	// Bool is true or false (strconv.ParseBool).
	Bool OptionType = "bool"
	// Int is an integer within [Min, Max].
	Int OptionType = "int"
	// Float is a finite number within [Min, Max].
	Float OptionType = "float"
	// Duration is a Go duration (90s, 4m) or a number of seconds, within
	// [Min, Max] seconds.
	Duration OptionType = "duration"
	// Enum is one of Values.
	Enum OptionType = "enum"
	// List is a comma-separated list of Values, none repeated.
	List OptionType = "list"
	// String is any text (a path when Resource is set).
	String OptionType = "string"
)

// Resource says what local resource an option's value names. An option
// that names one chooses a program to run, a place to write or a file to
// read, so a value that comes from a data file someone else wrote (a
// scenario, a results file) must be refused: see Registry.LocalOptions.
type Resource string

func (r Resource) withArticle() string {
	if r == Executable {
		return "an " + string(r)
	}
	return "a " + string(r)
}

// The resources an option may name.
const (
	// NoResource: the value names nothing on the local machine.
	NoResource Resource = ""
	// Executable: the value is a program that is run (a solver binary).
	Executable Resource = "executable"
	// Directory: the value is a directory that is written to.
	Directory Resource = "directory"
	// InputFile: the value is a file that is read.
	InputFile Resource = "file"
)

// Option declares one placer option, once: its name, type, default, valid
// range and a one-line doc. The registry parses and validates every value
// against it (Registry.New, Registry.Resolve), fills in the default of an
// option not given, and prints it (list placers --options, describe
// placer, the README table), in the manner of a kube-scheduler plugin's
// Args with its Validate function.
type Option struct {
	// Name is the key, as in --opt NAME=VALUE.
	Name string
	// Type says how the value is parsed.
	Type OptionType
	// Default is the value, as text, when the option is not given; "" for
	// none (the placer's behaviour without it is described in Doc).
	Default string
	// Min and Max bound an Int or Float value, and a Duration in seconds.
	Min, Max float64
	// Values lists the choices of an Enum or a List.
	Values []string
	// Doc is a one-line description.
	Doc string
	// Resource says whether the value names a local program, directory or
	// file (NoResource: it does not).
	Resource Resource
	// Required options must be given: the placer cannot run without them.
	Required bool
}

// Local reports whether the option names a local resource.
func (o Option) Local() bool { return o.Resource != NoResource }

// Range describes the valid values, as an error message or a table
// shows it: "integer in [1, 1073741824]", "one of: auto, gonum, cbc".
func (o Option) Range() string {
	switch o.Type {
	case Bool:
		return "true or false"
	case Int:
		return fmt.Sprintf("integer in [%s, %s]", fmtNum(o.Min), fmtNum(o.Max))
	case Float:
		return fmt.Sprintf("number in [%s, %s]", fmtNum(o.Min), fmtNum(o.Max))
	case Duration:
		return fmt.Sprintf("duration (90s, 4m) or seconds in [%s, %s]", fmtNum(o.Min), fmtNum(o.Max))
	case Enum:
		return "one of: " + strings.Join(o.Values, ", ")
	case List:
		return "comma-separated list of: " + strings.Join(o.Values, ", ")
	}
	if o.Resource != NoResource {
		return "path of " + o.Resource.withArticle()
	}
	return "text"
}

func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Check reports whether v is a valid value of o; the error names the
// option, the value and the valid range. It parses as the option's binding
// does (Decls), so a value Check accepts is one Decode accepts.
func (o Option) Check(v string) error {
	ok := true
	switch o.Type {
	case Bool:
		_, err := strconv.ParseBool(v)
		ok = err == nil
	case Int:
		_, ok = o.parseInt(v)
	case Float:
		_, ok = o.parseFloat(v)
	case Duration:
		_, ok = o.parseSeconds(v)
	case Enum:
		ok = contains(o.Values, v)
	case List:
		_, ok = o.parseList(v)
	case String:
		ok = o.Resource == NoResource || v != ""
	default:
		return fmt.Errorf("%w: option %s has no type", ErrBadOption, o.Name)
	}
	if !ok {
		return o.bad(v)
	}
	return nil
}

// bad is the error for a value v outside o's range.
func (o Option) bad(v string) error {
	return fmt.Errorf("%w: %s=%q (valid: %s)", ErrBadOption, o.Name, v, o.Range())
}

// parseInt reads an integer within [Min, Max].
func (o Option) parseInt(v string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil && float64(n) >= o.Min && float64(n) <= o.Max
}

// parseFloat reads a finite number within [Min, Max].
func (o Option) parseFloat(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && f >= o.Min && f <= o.Max
}

// parseSeconds reads a duration (ParseSeconds) within [Min, Max] seconds.
func (o Option) parseSeconds(v string) (float64, bool) {
	d, err := ParseSeconds(v)
	return d, err == nil && d >= o.Min && d <= o.Max
}

// parseList reads a comma-separated list of Values, none repeated.
func (o Option) parseList(v string) ([]string, bool) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if !contains(o.Values, s) || contains(out, s) {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// ParseSeconds reads a Go duration ("90s", "4m") or a plain number of
// seconds, and returns seconds.
func ParseSeconds(v string) (float64, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a duration or a number of seconds", v)
	}
	return f, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// validateDecls checks the declarations when it is registered: a name, a known
// type, a valid default, no name twice.
func validateDecls(placer string, decls []Option) error {
	seen := map[string]bool{}
	for _, o := range decls {
		switch {
		case o.Name == "" || strings.ContainsAny(o.Name, ".= ,"):
			return fmt.Errorf("register placer %q: option name %q is empty or holds one of . = , or a space", placer, o.Name)
		case seen[o.Name]:
			return fmt.Errorf("register placer %q: option %q declared twice", placer, o.Name)
		case o.Doc == "":
			return fmt.Errorf("register placer %q: option %q has no doc", placer, o.Name)
		case (o.Type == Enum || o.Type == List) && len(o.Values) == 0:
			return fmt.Errorf("register placer %q: option %q lists no values", placer, o.Name)
		}
		seen[o.Name] = true
		switch o.Type {
		case Bool, Int, Float, Duration, Enum, List, String:
		default:
			return fmt.Errorf("register placer %q: option %q has type %q (valid: bool, int, float, duration, enum, list, string)", placer, o.Name, o.Type)
		}
		if o.Default != "" {
			if err := o.Check(o.Default); err != nil {
				return fmt.Errorf("register placer %q: default: %w", placer, err)
			}
		}
	}
	return nil
}

// optionNames lists the names of decls, sorted.
func optionNames(decls []Option) []string {
	n := make([]string, len(decls))
	for i, o := range decls {
		n[i] = o.Name
	}
	sort.Strings(n)
	return n
}

// unknownKey is the error for a key no declaration has: what says where
// it was looked for; the error lists the valid keys and suggests the
// nearest one.
func unknownKey(key string, valid []string, what string) error {
	list := "none"
	if len(valid) > 0 {
		list = strings.Join(valid, ", ")
	}
	if s := suggest.Closest(key, valid); s != "" {
		return fmt.Errorf("%w: unknown option %q for %s; did you mean %s? (valid: %s)", ErrBadOption, key, what, s, list)
	}
	return fmt.Errorf("%w: unknown option %q for %s (valid: %s)", ErrBadOption, key, what, list)
}
