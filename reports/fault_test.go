package reports

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// faultFS is the operating system's file system with one fault injected,
// as SQLite's test harness injects I/O errors: the call numbered failAt
// (counting every call of the write, file calls included) fails with err,
// or, with short set, a Write writes half its bytes and reports no error.
type faultFS struct {
	osFS
	calls, failAt int
	err           error
	short         bool
}

// fail counts a call and reports whether it is the one to fail with err
// (a short-write fault fails no call but a Write).
func (f *faultFS) fail() bool { f.calls++; return f.calls == f.failAt && f.err != nil }

func (f *faultFS) Lstat(p string) (os.FileInfo, error) {
	if f.fail() {
		return nil, f.err
	}
	return f.osFS.Lstat(p)
}

func (f *faultFS) CreateTemp(dir, pattern string) (tempFile, error) {
	if f.fail() {
		return nil, f.err
	}
	t, err := f.osFS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultFile{tempFile: t, fs: f}, nil
}

func (f *faultFS) Chmod(p string, m os.FileMode) error {
	if f.fail() {
		return f.err
	}
	return f.osFS.Chmod(p, m)
}

func (f *faultFS) Rename(a, b string) error {
	if f.fail() {
		return f.err
	}
	return f.osFS.Rename(a, b)
}

// Remove never fails: it is the clean-up whose effect the test checks.
func (f *faultFS) Remove(p string) error { return f.osFS.Remove(p) }

type faultFile struct {
	tempFile
	fs *faultFS
}

func (f *faultFile) Write(p []byte) (int, error) {
	if f.fs.short && f.fs.calls+1 == f.fs.failAt {
		f.fs.calls++
		n, _ := f.tempFile.Write(p[:len(p)/2])
		return n, nil
	}
	if f.fs.fail() {
		return 0, f.fs.err
	}
	return f.tempFile.Write(p)
}

func (f *faultFile) Sync() error {
	if f.fs.fail() {
		return f.fs.err
	}
	return f.tempFile.Sync()
}

func (f *faultFile) Close() error {
	err := f.tempFile.Close()
	if f.fs.fail() {
		return f.fs.err
	}
	return err
}

// TestWriteFileAtomicFaults fails each call of an atomic write in turn
// (Lstat, CreateTemp, Write, Sync, Close, Chmod, Rename) with ENOSPC, EIO
// and a short write, over an existing file and over none: every failure
// is an error naming the path, the old contents (or the absence of a file)
// stay, and no temporary file is left; with no fault the new contents are
// in place.
func TestWriteFileAtomicFaults(t *testing.T) {
	t.Parallel()
	old, data := []byte("old results\n"), bytes.Repeat([]byte("new results\n"), 1000)
	const calls = 7 // Lstat, CreateTemp, Write, Sync, Close, Chmod, Rename
	faults := []struct {
		name  string
		err   error
		short bool
	}{{"ENOSPC", syscall.ENOSPC, false}, {"EIO", syscall.EIO, false}, {"short write", nil, true}}
	for _, existing := range []bool{true, false} {
		for _, fault := range faults {
			for at := 1; at <= calls+1; at++ {
				name := fmt.Sprintf("existing=%v/%s/call-%d", existing, fault.name, at)
				dir := t.TempDir()
				path := filepath.Join(dir, "results.json")
				if existing {
					if err := os.WriteFile(path, old, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				fs := &faultFS{failAt: at, err: fault.err, short: fault.short}
				err := writeFileAtomic(fs, path, data)
				got, rerr := os.ReadFile(path)
				// a short write affects only Write, the third call
				injected := at <= calls && (!fault.short || at == 3)
				if injected {
					if at == 1 {
						// a failing Lstat is taken for a missing file: the
						// write goes on and must succeed
						if err != nil || !bytes.Equal(got, data) {
							t.Errorf("%s: a failed Lstat stopped the write: %v", name, err)
						}
					} else {
						if err == nil || !strings.Contains(err.Error(), path) {
							t.Errorf("%s: error %v, want one naming %s", name, err, path)
						}
						if fault.err != nil && !errors.Is(err, fault.err) {
							t.Errorf("%s: error %v does not wrap %v", name, err, fault.err)
						}
						switch {
						case existing && !bytes.Equal(got, old):
							t.Errorf("%s: the old file changed to %d bytes (%v)", name, len(got), rerr)
						case !existing && !errors.Is(rerr, os.ErrNotExist):
							t.Errorf("%s: a file of %d bytes appeared", name, len(got))
						}
					}
				} else if err != nil || !bytes.Equal(got, data) {
					t.Errorf("%s: no fault, yet %v and %d bytes", name, err, len(got))
				}
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if e.Name() != "results.json" {
						t.Errorf("%s: left %s behind", name, e.Name())
					}
				}
			}
		}
	}
}
