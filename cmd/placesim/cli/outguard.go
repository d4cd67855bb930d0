package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"placesim/internal/readfile"
	"placesim/study"
)

// Output guards (issue 31): --out and -o replace only regular files that
// placesim owns. A single-file output (export -o) refuses a device node, a
// FIFO, a socket, a directory and a symbolic link, which an atomic rename
// would otherwise replace by a regular file (export --out /dev/null as
// root turned /dev/null into a file). An output folder (run, sweep,
// compare, merge --out) refuses the root, a symbolic link, a file and a
// folder that holds files placesim did not write (one that holds another
// command's results is study.ClaimDir's to refuse); a lock on the folder keeps a second writer out while the
// first one works (two runs on one --out interleaved their journal).

// guardOutFile refuses, before anything is made, a file output path that
// is not a new path or a regular file: flag names the flag for the error.
func guardOutFile(flag, path string) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("%s %q: empty path (valid: a file to create or replace)", flag, path)
	}
	if isRoot(path) {
		return fmt.Errorf("%s %s: the root folder (valid: a file to create or replace)", flag, path)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %s: a symbolic link (valid: a regular file or a new path; placesim does not replace links)", flag, path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s %s: %s (valid: a regular file or a new path; placesim replaces only regular files)", flag, path, readfile.ModeKind(st.Mode()))
	}
	return nil
}

// claimOutDir makes dir ready to hold cmd's results and locks it: it
// refuses the root, a symbolic link, a path that is not a folder, a folder
// holding files placesim did not write, and a folder another placesim is
// writing into. release unlocks it; it must
// be called when the command ends (the lock also ends with the process,
// so a killed writer leaves no stale lock).
func claimOutDir(flag, dir, cmd string, sh study.Shard) (release func(), err error) {
	if strings.TrimSpace(dir) == "" {
		return nil, fmt.Errorf("%s %q: empty path (valid: a new or empty folder, or one placesim %s wrote)", flag, dir, cmd)
	}
	if isRoot(dir) {
		return nil, fmt.Errorf("%s %s: the root folder (valid: a new or empty folder, or one placesim %s wrote; e.g. %s)", flag, dir, cmd, filepath.Join(dir, "out"))
	}
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s %s: the folder cannot be created: %w", flag, dir, err)
		}
	case err != nil:
		return nil, fmt.Errorf("%s %s: output directory: %w", flag, dir, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s %s: a symbolic link (valid: a folder; give the folder it points to if that is meant)", flag, dir)
	case !st.IsDir():
		return nil, fmt.Errorf("%s %s: %s, not an output directory (valid: a new or empty folder, or one placesim %s wrote)", flag, dir, readfile.ModeKind(st.Mode()), cmd)
	}
	if err := foreignFiles(dir); err != nil {
		return nil, fmt.Errorf("%s %s: %w (valid: a new or empty folder, or one placesim %s wrote; use a subfolder)", flag, dir, err, cmd)
	}
	// which command's results a folder holds is study.ClaimDir's (their
	// stamp); here: shards of one run share a folder, each with its own journal (which
	// study locks); anything else writes the folder alone
	return lockDir(flag, dir, sh.N <= 1)
}

// foreignFiles refuses a folder holding a file placesim does not write
// (a home folder, /etc): its results would land among the user's files.
// Hidden files (atomic writes' temporary files, a user's dot files) and
// every name placesim's commands write are allowed.
func foreignFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."),
			strings.HasPrefix(name, "journal") && strings.HasSuffix(name, ".jsonl"),
			strings.HasPrefix(name, "results") && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".csv")),
			name == "report.html", name == "trace.json", name == "table.txt", name == "scoreboard.txt", name == "figures.txt", name == "notes.txt",
			strings.HasSuffix(name, ".png"), strings.HasSuffix(name, ".svg"), strings.HasSuffix(name, ".csv"):
		case e.IsDir():
			// subfolders: a merge or a comparison beside a run's files
		default:
			return fmt.Errorf("holds %s, which placesim did not write", strconv.Quote(name))
		}
	}
	return nil
}

// lockDir locks the folder itself (flock on its descriptor, so no file
// is left behind, and a killed writer's lock ends with it) without
// waiting: exclusive for a writer that owns the folder, shared for a
// shard of a sharded run. A second writer is refused.
func lockDir(flag, dir string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s %s: another placesim is writing into this folder; wait for it to end or use another folder", flag, dir)
		}
		return nil, fmt.Errorf("%s %s: lock: %w", flag, dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// isRoot reports whether path is a file system root ("/", "//", "/..").
func isRoot(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return filepath.Dir(abs) == abs
}
