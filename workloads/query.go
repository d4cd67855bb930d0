package workloads

import (
	"fmt"
	"net/url"
	"sort"
)

// QueryParam is one key=value option of a workload file spec's query.
type QueryParam struct{ Key, Value string }

// ParseQuery reads the options of a workload file spec's query
// ("batch_size=32&training=true", the part after '?'), sorted by key;
// format names the file format in errors ("onnx", "msr-fiddle"). A key
// given twice is an error.
func ParseQuery(format, query string) ([]QueryParam, error) {
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("%s options %q: %w", format, query, err)
	}
	out := make([]QueryParam, 0, len(vals))
	for k, v := range vals {
		if len(v) != 1 {
			return nil, fmt.Errorf("%s option %s given %d times", format, k, len(v))
		}
		out = append(out, QueryParam{k, v[0]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
