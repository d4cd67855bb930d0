package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"placesim/internal/readfile"
)

// tempPattern is the name of WriteFileAtomic's temporary files: hidden
// (a leading dot), then the target's name, ".tmp" and os.CreateTemp's
// random digits.
var tempPattern = regexp.MustCompile(`^\..+\.tmp[0-9]+$`)

// WriteFileAtomic writes data to a hidden temporary file beside path
// (".NAME.tmpDIGITS"), syncs it and renames it into place: a reader, or a
// run killed midway, sees either the old file, no file or the whole new
// one, never a part. A killed run may leave the hidden temporary file;
// CleanTemp removes it.
func WriteFileAtomic(path string, data []byte) error {
	return writeFileAtomic(osFS{}, path, data)
}

// writeFS is what writeFileAtomic asks of the file system: the operating
// system's (osFS), or in the fault tests one that fails a chosen call.
type writeFS interface {
	Lstat(path string) (os.FileInfo, error)
	CreateTemp(dir, pattern string) (tempFile, error)
	Chmod(path string, mode os.FileMode) error
	Rename(from, to string) error
	Remove(path string) error
}

// tempFile is the temporary file being written.
type tempFile interface {
	Name() string
	Write(p []byte) (int, error)
	Sync() error
	Close() error
}

// osFS is the operating system's file system.
type osFS struct{}

func (osFS) Lstat(p string) (os.FileInfo, error) { return os.Lstat(p) }
func (osFS) CreateTemp(dir, pattern string) (tempFile, error) {
	return os.CreateTemp(dir, pattern)
}
func (osFS) Chmod(p string, m os.FileMode) error { return os.Chmod(p, m) }
func (osFS) Rename(a, b string) error            { return os.Rename(a, b) }
func (osFS) Remove(p string) error               { return os.Remove(p) }

// writeFileAtomic is WriteFileAtomic on fs: whichever call fails, the
// error names path, the temporary file is removed and path keeps its old
// contents (or stays absent).
func writeFileAtomic(fs writeFS, path string, data []byte) error {
	return writeFileAtomicFunc(fs, path, func(w io.Writer) error {
		if n, err := w.Write(data); err != nil || n != len(data) {
			if err == nil {
				err = io.ErrShortWrite
			}
			return err
		}
		return nil
	})
}

// WriteFileAtomicFunc is WriteFileAtomic for contents too large to hold
// in memory: write streams them (through a buffer) into the temporary
// file, which replaces path only when write and the sync succeed (issue
// 31: a merge of 400,000 records built its 240 MB results.json in memory
// several times over).
func WriteFileAtomicFunc(path string, write func(io.Writer) error) error {
	return writeFileAtomicFunc(osFS{}, path, write)
}

// writeFileAtomicFunc is WriteFileAtomicFunc on fs.
func writeFileAtomicFunc(fs writeFS, path string, write func(io.Writer) error) error {
	// the rename replaces whatever path names: only a regular file (or
	// nothing) may be replaced, never a device node, a FIFO or a link
	// (issue 31: export --out /dev/null as root made it a regular file)
	if st, err := fs.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("write %s: not a regular file (%s); placesim replaces only regular files", path, readfile.ModeKind(st.Mode()))
	}
	f, err := fs.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		fs.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		fs.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fs.Chmod(tmp, 0o644); err != nil {
		fs.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fs.Rename(tmp, path); err != nil {
		fs.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CleanTemp removes the temporary files a killed WriteFileAtomic left in
// dir (hidden files named like ".results.json.tmp123") and returns their
// names. Other files are left alone. Two runs must not write into the same
// directory at once: one would remove the other's temporary files.
func CleanTemp(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	var removed []string
	for _, e := range ents {
		if e.Type().IsRegular() && tempPattern.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return removed, fmt.Errorf("output directory %s: %w", dir, err)
			}
			removed = append(removed, e.Name())
		}
	}
	return removed, nil
}

// PrepareDir makes dir ready for output before any long work starts: it
// creates it (with parents), removes temporary files a killed run left
// (CleanTemp) and checks that a file can be written there. Its errors say
// which path failed and why, e.g. a parent that is a regular file.
func PrepareDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("output directory: empty path")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory %s cannot be created: %w", dir, err)
	}
	if _, err := CleanTemp(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-check.tmp*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	return nil
}
