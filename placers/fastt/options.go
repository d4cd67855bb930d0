package fastt

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"placesim/placers"
)

// checkKeys refuses option keys a placer does not read, naming the valid
// ones (a misspelt option is an error, never silently ignored).
func checkKeys(opts placers.Options, valid ...string) error {
	var bad []string
	for k := range opts {
		ok := false
		for _, v := range valid {
			ok = ok || k == v
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("%w: unknown option %q (valid: %s)", placers.ErrBadOption, bad[0], strings.Join(valid, ", "))
	}
	return nil
}

// boolOption reads a true|false option, def when absent.
func boolOption(opts placers.Options, key string, def bool) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: %s=%q (valid: true, false)", placers.ErrBadOption, key, v)
	}
	return b, nil
}
