package study

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"

	"placesim/internal/readfile"
	"placesim/placers"
)

// PointInputs are hashes of everything that determines a point's record;
// the journal keeps them with each record, and a resumed run re-runs a
// point whose inputs changed instead of reusing its record.
type PointInputs struct {
	// Version is the placesim build (module version and VCS revision).
	Version string `json:"version"`
	// Workload hashes the workload spec and, for a file, its contents.
	Workload string `json:"workload"`
	// Cluster hashes the cluster spec and, for a file, its contents.
	Cluster string `json:"cluster"`
	// Settings hashes the resolved run settings: placer, options (the
	// scenario's and the command line's), seed, what-ifs, estimates,
	// timeout, memory limit and any other scenario-wide field.
	Settings string `json:"settings"`
}

// diff names the inputs that differ from o ("" when none).
func (in PointInputs) diff(o PointInputs) string {
	var d []string
	if in.Workload != o.Workload {
		d = append(d, "workload")
	}
	if in.Cluster != o.Cluster {
		d = append(d, "cluster")
	}
	if in.Settings != o.Settings {
		d = append(d, "settings or placer options")
	}
	if in.Version != o.Version {
		d = append(d, fmt.Sprintf("placesim version (%s, now %s)", o.Version, in.Version))
	}
	return strings.Join(d, ", ")
}

// Version is this placesim's build: the main module's version and, when
// built from a repository, its revision (with "+dirty" for local changes).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v
}

func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// specHash hashes a workload or cluster spec and, when it names a file
// (the part before any "?"), the file's contents.
func (c *inputCache) specHash(spec string) string {
	return must(getCached(&c.mu, c.hashes, spec, func() (string, error) {
		path, _, _ := strings.Cut(spec, "?")
		data, err := readfile.Read(path, readfile.MaxWorkload)
		if err != nil {
			data = nil // a preset or zoo model: the spec says it all
		}
		return hashOf([]byte(spec), data), nil
	}))
}

func must[T any](v T, _ error) T { return v }

// placerOptions is the placer's declared options (nil for a placer the
// registry lacks: its point fails with that error).
func placerOptions(reg *placers.Registry, placer string) []placers.Option {
	if reg == nil {
		return nil
	}
	e, err := reg.Entry(placer)
	if err != nil {
		return nil
	}
	return e.Options
}

// optionFiles lists "option=hash of the file's contents" for every option
// of decls (a placer's, plain or qualified by the placer's name in opts)
// that names an input file; a file that cannot be read hashes as its
// error, so that it changing into a readable one is a change too.
func (c *inputCache) optionFiles(decls []placers.Option, placer string, opts placers.Options) []string {
	var out []string
	for _, decl := range decls {
		if decl.Resource != placers.InputFile {
			continue
		}
		path, ok := opts[decl.Name]
		if q, qok := opts[placer+"."+decl.Name]; qok {
			path, ok = q, true
		}
		if !ok || path == "" {
			continue
		}
		h := must(getCached(&c.mu, c.hashes, "file\x00"+path, func() (string, error) {
			data, err := readfile.Read(path, readfile.MaxData)
			if err != nil {
				return hashOf([]byte(path), []byte("error: "+err.Error())), nil
			}
			return hashOf([]byte(path), data), nil
		}))
		out = append(out, decl.Name+"="+h)
	}
	return out
}

// optionDefaults lists "option=default" for every option of decls (a
// placer's): a default that changes between two builds (a search budget,
// say) changes the point's result as much as a given option does, and
// the build's version alone does not show it when both builds carry the
// same revision with local changes.
func optionDefaults(decls []placers.Option) []string {
	out := make([]string, 0, len(decls))
	for _, decl := range decls {
		out = append(out, decl.Name+"="+decl.Default)
	}
	return out
}

// pointInputs computes the input hashes of point p.
// The contents of every file an option of the point's placer names (a
// placers.InputFile option, such as expert's file) are hashed too: a
// resume re-runs a point whose file changed, not only one whose path did
// (issue 31).
func (c *inputCache) pointInputs(reg *placers.Registry, s *Scenario, p Point, opts placers.Options, maxMemory int64, version string) PointInputs {
	// every scenario-wide field except those that list the points
	var wide map[string]any
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &wide)
	for _, k := range []string{"name", "description", "workloads", "clusters", "placers", "placerOptions", "seeds", "settings", "vary", "baseline"} {
		delete(wide, k)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var o []string
	for _, k := range keys {
		o = append(o, k+"="+opts[k])
	}
	decls := placerOptions(reg, p.Placer)
	settings, _ := json.Marshal(struct {
		Placer    string         `json:"placer"`
		Options   []string       `json:"options"`
		Defaults  []string       `json:"defaults,omitempty"`
		Files     []string       `json:"files,omitempty"`
		Seed      uint64         `json:"seed"`
		Settings  []Setting      `json:"settings"`
		MaxMemory int64          `json:"maxMemory"`
		Wide      map[string]any `json:"wide"`
	}{p.Placer, o, optionDefaults(decls), c.optionFiles(decls, p.Placer, opts), p.Seed, p.Settings, maxMemory, wide})
	return PointInputs{Version: version, Workload: c.specHash(p.Workload), Cluster: c.specHash(p.Cluster), Settings: hashOf(settings)}
}

// openNoFollow opens path with flag, refusing a symbolic link: a link
// planted at a journal's path must not redirect what placesim writes.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: refused (remove it; placesim writes only regular files)", path)
		}
		return nil, err
	}
	return f, nil
}

// staleNote says which journaled points are re-run and why.
type staleNote struct {
	Point  Point
	Reason string
}

// openJournal opens (creating) the journal for appending, without
// following a symbolic link, and loads the finished points whose inputs
// match want. A torn last line (a kill mid-write) is cut off; lines of
// other points (a changed scenario) are ignored; a point journaled with
// other inputs is returned in stale, to be re-run.
func openJournal(path string, pts []Point, want map[int]PointInputs) (*os.File, map[int]journalLine, []staleNote, error) {
	f, err := openNoFollow(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("journal: %w", err)
	}
	fail := func(err error) (*os.File, map[int]journalLine, []staleNote, error) {
		f.Close()
		return nil, nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil {
		return fail(err)
	} else if !fi.Mode().IsRegular() {
		return fail(fmt.Errorf("not a regular file (%s)", readfile.ModeKind(fi.Mode())))
	}
	// one writer per journal: a second run on the same folder (or shard)
	// would interleave its lines with the first's (issue 31); the lock
	// ends when the journal is closed or the process dies
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fail(&FieldError{Field: "out", Msg: "another placesim is running into this folder (its journal is locked); wait for it to end or use another folder", Valid: "a folder no other placesim is writing into"})
		}
		return fail(fmt.Errorf("lock: %w", err))
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail(err)
	}
	done := map[int]journalLine{}
	var stale []staleNote
	good := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if good+len(line)+1 > len(data) {
			break // the last line has no newline: torn by a kill
		}
		good += len(line) + 1
		var l journalLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		i := l.Record.Index
		if i < 0 || i >= len(pts) || pts[i].Key() != l.Record.Point.Key() {
			continue
		}
		w, ok := want[i]
		switch {
		case !ok:
			continue // another shard's point
		case l.Inputs == nil:
			stale = append(stale, staleNote{pts[i], "journaled without input hashes (an earlier placesim)"})
			delete(done, i)
		case *l.Inputs != w:
			stale = append(stale, staleNote{pts[i], "changed: " + w.diff(*l.Inputs)})
			delete(done, i)
		default:
			done[i] = l
		}
	}
	// a point re-run after a stale line is journaled again: the last line
	// of a point wins
	var keep []staleNote
	for _, n := range stale {
		if _, ok := done[n.Point.Index]; !ok {
			keep = append(keep, n)
		}
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			return fail(err)
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return fail(err)
	}
	return f, done, dedupe(keep), nil
}

// dedupe keeps the last note of each point.
func dedupe(ns []staleNote) []staleNote {
	last := map[int]int{}
	for i, n := range ns {
		last[n.Point.Index] = i
	}
	var out []staleNote
	for i, n := range ns {
		if last[n.Point.Index] == i {
			out = append(out, n)
		}
	}
	return out
}

// staleMessage summarises the re-run points: how many and why, the first
// few named, in point order.
func staleMessage(stale []staleNote) string {
	stale = slices.Clone(stale)
	slices.SortFunc(stale, func(a, b staleNote) int { return a.Point.Index - b.Point.Index })
	var parts []string
	for _, n := range stale[:min(len(stale), 5)] {
		parts = append(parts, fmt.Sprintf("point %d (%s): %s", n.Point.Index, n.Point.Key(), n.Reason))
	}
	more := ""
	if len(stale) > 5 {
		more = fmt.Sprintf("; and %d more", len(stale)-5)
	}
	return fmt.Sprintf("re-simulating %d journaled points whose inputs changed since they ran: %s%s", len(stale), strings.Join(parts, "; "), more)
}
