// Package readfile reads the input files people hand placesim (workloads,
// cluster files, scenarios, stage files, expert plans, results) with a
// bound: only a regular file, and only up to a size limit, is read into
// memory. A path naming /dev/zero, a FIFO or a directory, or a file larger
// than its kind allows, is an error before any allocation, never a
// process that reads forever or dies with a runtime out-of-memory.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"placesim/internal/units"
)

// Limits by kind of file.
const (
	// MaxWorkload bounds a workload file: 2 GiB, protobuf's own limit on
	// one message, so no ONNX model placesim could parse is refused.
	MaxWorkload = 2 << 30
	// MaxData bounds the other input files (cluster, scenario, stage file,
	// expert plan, results): text a person or placesim wrote, far below
	// this even for 100,000-point results.
	MaxData = 256 << 20
	// MaxYAML bounds a cluster or scenario file, which a YAML parser
	// turns into a node tree many times its size: 16 MiB holds a cluster
	// file of 65,536 devices (workloads.MaxDevices, about 5 MiB written
	// one device a line) three times over, and parses in seconds; a file
	// of 10^6 devices (78 MB) is refused before it is parsed.
	MaxYAML = 16 << 20
)

// ErrPseudoFile is wrapped by the error for a file of a kernel pseudo file
// system (procfs, sysfs, debugfs...): they call themselves regular files
// of size 0 or 4096 and may hold gigabytes (/proc/self/pagemap) or never
// end, so their size cannot bound a read.
var ErrPseudoFile = errors.New("kernel pseudo file")

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (a device such as /dev/zero, a pipe, a socket or a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file above its limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the contents of the regular file at path (symbolic links
// followed) if it holds at most limit bytes and is not on a kernel pseudo
// file system (ErrPseudoFile). The size is checked before
// reading and again while reading, so a file that grows meanwhile is
// refused too. Errors wrap the os error (fs.ErrNotExist...),
// ErrNotRegular or ErrTooLarge.
func Read(path string, limit int64) ([]byte, error) {
	f, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, int64(len(data)), limit)
	}
	return data, nil
}

// check refuses what stat says is not a regular file or is above limit.
func check(path string, stat func(string) (os.FileInfo, error), limit int64) error {
	st, err := stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s; want a file)", path, ErrNotRegular, ModeKind(st.Mode()))
	}

	if st.Size() > limit {
		return tooLarge(path, st.Size(), limit)
	}
	return nil
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s: %w: %s (valid: at most %s for this kind of file)", path, ErrTooLarge, units.Bytes(size), units.Bytes(limit))
}

// ModeKind names a file mode for errors: "a folder", "a character
// device", "a block device", "a named pipe (FIFO)", "a socket", "a
// symbolic link", "a regular file" (the output guard's refusal of a file
// given as a folder), else "a special file (mode M)". It is the one wording of file kinds for every reader and writer
// (readfile's refusals, the CLI's output guard).
func ModeKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (mode " + m.String() + ")"
}

// Open opens the regular file at path for reading as a stream, with the
// checks of Read: a path that is not a regular file, a kernel pseudo
// file or a file above limit bytes is refused before any read, and a
// file that grows past limit while it is read fails the read with
// ErrTooLarge. It is for files read one piece at a time (a results file
// of a million records is decoded record by record, never held whole).
func Open(path string, limit int64) (io.ReadCloser, error) {
	f, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	return &bounded{f: f, path: path, left: limit, limit: limit}, nil
}

// open opens the regular file at path for Read and Open after their
// checks: what the path names is a regular file of at most limit bytes,
// before opening and again on what was opened, and not on a kernel
// pseudo file system.
func open(path string, limit int64) (*os.File, error) {
	// stat before opening: opening a named pipe blocks until a writer
	// comes
	if err := check(path, os.Stat, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// and again on what was opened, should the path have changed
	if err := check(path, func(string) (os.FileInfo, error) { return f.Stat() }, limit); err != nil {
		f.Close()
		return nil, err
	}
	if fs := pseudoFS(f); fs != "" {
		f.Close()
		return nil, fmt.Errorf("%s: %w (on %s, whose file sizes are not real; want a file on disk)", path, ErrPseudoFile, fs)
	}
	return f, nil
}

// bounded reads at most limit bytes of f, then fails with ErrTooLarge.
type bounded struct {
	f           *os.File
	path        string
	left, limit int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// one byte more tells a file that grew past the limit from one
		// that ends at it
		var one [1]byte
		if n, _ := b.f.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%s: %w: it grew past %s while it was read (valid: at most %s for this kind of file)", b.path, ErrTooLarge, units.Bytes(b.limit), units.Bytes(b.limit))
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }
