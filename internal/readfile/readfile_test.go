package readfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRead: a regular file within its limit is read whole; a directory,
// a device, a named pipe, a missing path and a file over the limit are
// errors naming the path, before anything is read.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	tests := []struct {
		name  string
		path  string
		limit int64
		want  string // "" : read, equal to small's contents
		is    error
	}{
		{"regular file", small, 100, "", nil},
		{"exactly the limit", small, 10, "", nil},
		{"symbolic link to a file", link, 100, "", nil},
		{"one byte over", small, 9, "10 B (valid: at most 9 B", ErrTooLarge},
		{"directory", dir, 100, "(a folder; want a file)", ErrNotRegular},
		{"device", "/dev/zero", 100, "(a character device; want a file)", ErrNotRegular},
		{"named pipe", fifo, 100, "(a named pipe (FIFO); want a file)", ErrNotRegular},
		{"missing", filepath.Join(dir, "nope"), 100, "no such file", fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Read(tc.path, tc.limit)
			// Open, read to the end, gives the same answer
			if r, oerr := Open(tc.path, tc.limit); oerr != nil {
				if tc.want == "" || !errors.Is(oerr, tc.is) || !strings.Contains(oerr.Error(), tc.want) {
					t.Fatalf("Open: %v, want the error of Read, %v", oerr, err)
				}
			} else {
				got, rerr := io.ReadAll(r)
				r.Close()
				if tc.want != "" || rerr != nil || string(got) != "0123456789" {
					t.Fatalf("Open and read = %q, %v; Read = %q, %v", got, rerr, data, err)
				}
			}
			if tc.want == "" {
				if err != nil || string(data) != "0123456789" {
					t.Fatalf("Read = %q, %v", data, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want one containing %q and wrapping %v", err, tc.want, tc.is)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %v does not name %s", err, tc.path)
			}
		})
	}
}

// TestReadPseudoFiles: procfs and sysfs files call themselves regular
// files of size 0 (or 4096) yet may hold gigabytes (/proc/self/pagemap)
// or change as they are read; they are refused by their file system, not
// read to the limit (issue 31).
func TestReadPseudoFiles(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/proc/self/pagemap", "/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue // not on this system
		}
		t.Run(path, func(t *testing.T) {
			data, err := Read(path, MaxData)
			if !errors.Is(err, ErrPseudoFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Read(%s) = %d bytes, %v; want an error naming the path and wrapping ErrPseudoFile", path, len(data), err)
			}
		})
	}
}

// TestOpenGrows: a file that grows past the limit after Open checked its
// size fails the read with ErrTooLarge, rather than being read on.
func TestOpenGrows(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "grows.json")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("more"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := io.ReadAll(r)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grew past 10 B") {
		t.Fatalf("read %q, error %v; want ErrTooLarge naming the limit", got, err)
	}
}
