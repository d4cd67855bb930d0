package chakra

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"placesim/internal/readfile"
	"placesim/workloads"
)

// IsChakraPath reports whether a workload path names a Chakra ET: a file
// ending in .et or .et.gz, or such a name holding %d, a set of ranks
// (trace.%d.et).
func IsChakraPath(path string) bool {
	l := strings.ToLower(path)
	return strings.HasSuffix(l, ".et") || strings.HasSuffix(l, ".et.gz")
}

// rankOf reads a rank from a file name such as trace.3.et (0 if none).
var rankOf = regexp.MustCompile(`\.(\d{1,6})\.et(\.gz)?$`)

// Files lists the files of a spec: the file itself, or for a pattern with
// %d the files for ranks 0, 1, ... up to the first missing one (at least
// rank 0 must exist).
func Files(pattern string) ([]string, []int, error) {
	if !strings.Contains(pattern, "%d") {
		rank := 0
		if m := rankOf.FindStringSubmatch(filepath.Base(pattern)); m != nil {
			rank, _ = strconv.Atoi(m[1])
		}
		return []string{pattern}, []int{rank}, nil
	}
	if strings.Count(pattern, "%") != 1 {
		return nil, nil, fmt.Errorf("trace set %q: the pattern holds one %%d and no other %%", pattern)
	}
	var files []string
	var ranks []int
	for r := 0; ; r++ {
		f := fmt.Sprintf(pattern, r)
		if _, err := os.Stat(f); err != nil {
			if r == 0 {
				return nil, nil, fmt.Errorf("trace set %q: rank 0's file %q: %w", pattern, f, err)
			}
			break
		}
		files = append(files, f)
		ranks = append(ranks, r)
		if r >= 1<<16 {
			return nil, nil, fmt.Errorf("trace set %q: more than %d ranks", pattern, 1<<16)
		}
	}
	return files, ranks, nil
}

// ReadTrace reads a Chakra ET file or a set trace.%d.et.
func ReadTrace(spec string, opts Options) (*Trace, error) {
	files, ranks, err := Files(spec)
	if err != nil {
		return nil, err
	}
	t := &Trace{Format: "chakra", Name: spec, Groups: map[string]*Group{}, warn: newWarner(spec, opts.Strict)}
	budget := MaxNodes
	for i, f := range files {
		data, err := readfile.Read(f, readfile.MaxWorkload)
		if err != nil {
			return nil, fmt.Errorf("read trace %q: %w", f, err)
		}
		r, err := decodeRank(data, f, ranks[i], budget, opts, t.warn)
		if err != nil {
			return nil, err
		}
		budget -= len(r.Nodes)
		t.Ranks = append(t.Ranks, r)
		if err := t.groupsFromMetadata(r); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// DecodeTrace decodes one rank's Chakra ET held in data (name names it in
// errors), as ReadTrace does for a file.
func DecodeTrace(data []byte, name string, opts Options) (*Trace, error) {
	t := &Trace{Format: "chakra", Name: name, Groups: map[string]*Group{}, warn: newWarner(name, opts.Strict)}
	r, err := decodeRank(data, name, 0, MaxNodes, opts, t.warn)
	if err != nil {
		return nil, err
	}
	t.Ranks = []*Rank{r}
	if err := t.groupsFromMetadata(r); err != nil {
		return nil, err
	}
	return t, nil
}

// Load reads a Chakra ET (file or set) and builds its graph.
func Load(spec string, opts Options) (*workloads.Graph, *Summary, error) {
	t, err := ReadTrace(spec, opts)
	if err != nil {
		return nil, nil, err
	}
	return Build(t, opts)
}

// pgJSON is one process group as PyTorch's process_group:init records it.
type pgJSON struct {
	Name      string `json:"pg_name"`
	BackendID int64  `json:"backend_id"`
	Backend   string `json:"backend_config"`
	Ranks     []int  `json:"ranks"`
	GroupSize int    `json:"group_size"`
}

// groupsFromMetadata reads the process groups of a rank's metadata nodes
// ("## process_group:init ##", whose input is the JSON list of groups).
func (t *Trace) groupsFromMetadata(r *Rank) error {
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Kind != Metadata || !strings.Contains(n.Name, "process_group:init") {
			continue
		}
		if err := t.addGroups(n.pgText, r.File, n.ID); err != nil {
			return err
		}
	}
	return nil
}

// addGroups parses a process_group:init value: a JSON list of groups,
// possibly inside a Python string literal.
func (t *Trace) addGroups(text, file string, id uint64) error {
	a, b := strings.Index(text, "[{"), strings.LastIndex(text, "}]")
	if a < 0 || b < a {
		if strings.TrimSpace(text) == "" || strings.Contains(text, "[]") {
			return nil
		}
		return t.warn.add("process_group:init whose value is not a JSON list of groups: ignored", fmt.Sprintf("%s node %d", file, id))
	}
	var gs []pgJSON
	if err := json.Unmarshal([]byte(text[a:b+2]), &gs); err != nil {
		return fmt.Errorf("%w: %s: node %d (process_group:init): process groups: %v", ErrFormat, file, id, err)
	}
	for _, g := range gs {
		if g.GroupSize < 0 || g.GroupSize > 1<<20 {
			return fmt.Errorf("%w: %s: node %d: process group %q: group_size = %d (valid range: 0..%d)", ErrFormat, file, id, g.Name, g.GroupSize, 1<<20)
		}
		size := g.GroupSize
		if len(g.Ranks) > 0 {
			size = len(g.Ranks)
			for _, x := range g.Ranks {
				if x < 0 || x > 1<<20 {
					return fmt.Errorf("%w: %s: node %d: process group %q: rank %d (valid range: 0..%d)", ErrFormat, file, id, g.Name, x, 1<<20)
				}
			}
		}
		ng := &Group{Name: g.Name, Size: size, Backend: g.Backend, ID: g.BackendID}
		if len(g.Ranks) > 0 {
			ng.Ranks = append([]int(nil), g.Ranks...)
		}
		if old, ok := t.Groups[g.Name]; ok {
			if old.Size != ng.Size {
				return fmt.Errorf("%w: %s: process group %q has %d ranks here and %d in another rank's trace", ErrFormat, file, g.Name, ng.Size, old.Size)
			}
			continue
		}
		t.Groups[g.Name] = ng
	}
	return nil
}
