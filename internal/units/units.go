// Package units parses and prints the physical quantities placesim's files
// and flags use: sizes in bytes ("16GiB", "512MB"), rates in bytes/s
// ("25GB/s"), FLOP rates ("15.7TFLOPS") and durations in seconds ("5us").
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var sizeSuffixes = []struct {
	s string
	m float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15},
	{"B", 1},
}

// MaxBytes bounds a size: 2^62 bytes (4 EiB), so that sums of a few
// sizes never overflow an int64.
const MaxBytes = math.MaxInt64 / 2

// MinRate and MinFLOPS are the slowest link (1 byte/s) and device
// (1 FLOP/s) a file or flag may give: no hardware is slower, and a rate
// such as 1e-300 GB/s would only make step times of hundreds of digits.
const (
	MinRate  = 1
	MinFLOPS = 1
)

// isRate reports whether s is written as a rate (".../s", "...bps").
func isRate(s string) bool {
	t := strings.TrimSpace(s)
	return strings.HasSuffix(t, "/s") || strings.HasSuffix(t, "bps")
}

// ParseBytes parses a size such as "16GiB", "1.5GB", "4096" or "4096B".
// Binary (KiB, MiB, GiB, TiB) and decimal (kB, MB, GB, TB) suffixes are
// accepted; a bare number is bytes. Negative sizes are an error.
//
// A rate ("5GB/s") is not a size, and a count of bytes must be whole:
// "1.5B" or "1.5" is an error, while "1.5KiB" (1536 bytes) or "1.3GiB"
// (rounded to the byte) is a size.
func ParseBytes(s string) (int64, error) {
	if isRate(s) {
		return 0, fmt.Errorf("size %q is a rate, not a size (want e.g. 16GiB, 512MB or a number of bytes)", s)
	}
	v, err := parseWithSuffix(s, sizeSuffixes)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w (want e.g. 16GiB, 512MB or a number of bytes)", s, err)
	}
	if v < 0 {
		return 0, fmt.Errorf("size %q is negative (valid range: 0 to %s)", s, Bytes(MaxBytes))
	}
	if v > MaxBytes {
		return 0, fmt.Errorf("size %q is too large (valid range: 0 to %s)", s, Bytes(MaxBytes))
	}
	if t := strings.TrimSuffix(strings.TrimSpace(s), "B"); v != math.Trunc(v) && !hasLetter(t) {
		return 0, fmt.Errorf("size %q is a fraction of a byte (valid: a whole number of bytes, or a larger unit such as 1.5KiB)", s)
	}
	return int64(math.Round(v)), nil
}

// hasLetter reports whether s holds a unit letter (K, M, G...) besides a
// number's own (e for exponents).
func hasLetter(s string) bool {
	for _, r := range s {
		if (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z' && r != 'e') {
			return true
		}
	}
	return false
}

// ParseRate parses a bandwidth such as "25GB/s", "100Gb/s" (bits), "12.5e9"
// (bytes/s). The result is in bytes per second and must be positive.
//
// A size with a unit but without "/s" ("5GB") is an error: a size is not
// a rate, and reading it as one would be a silent guess.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !isRate(t) && hasLetter(t) {
		return 0, fmt.Errorf("rate %q is a size, not a rate (want e.g. %s/s, 100Gb/s or bytes per second as a number)", s, t)
	}
	bits := false
	switch {
	case strings.HasSuffix(t, "bps"):
		t, bits = strings.TrimSuffix(t, "bps"), true
	case strings.HasSuffix(t, "b/s"):
		t, bits = strings.TrimSuffix(t, "b/s")+"B", true
	default:
		t = strings.TrimSuffix(t, "/s")
	}
	if bits && !strings.HasSuffix(t, "B") {
		t += "B"
	}
	v, err := parseWithSuffix(t, sizeSuffixes)
	if err != nil {
		return 0, fmt.Errorf("rate %q: %w (want e.g. 25GB/s, 100Gb/s or bytes per second)", s, err)
	}
	if bits {
		v /= 8
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("rate %q must be positive and finite", s)
	}
	if v < MinRate {
		return 0, fmt.Errorf("rate %q is %g bytes/s (valid range: >= %g byte/s; a slower link makes times of hundreds of digits)", s, v, float64(MinRate))
	}
	return v, nil
}

var flopSuffixes = []struct {
	s string
	m float64
}{
	{"PFLOPS", 1e15}, {"TFLOPS", 1e12}, {"GFLOPS", 1e9}, {"MFLOPS", 1e6}, {"FLOPS", 1},
	{"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6},
}

// ParseFLOPS parses a compute rate such as "15.7TFLOPS" or "1.5e13" (FLOP/s).
func ParseFLOPS(s string) (float64, error) {
	v, err := parseWithSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/s"), flopSuffixes)
	if err != nil {
		return 0, fmt.Errorf("compute rate %q: %w (want e.g. 15.7TFLOPS or FLOP/s as a number)", s, err)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("compute rate %q must be positive and finite", s)
	}
	if v < MinFLOPS {
		return 0, fmt.Errorf("compute rate %q is %g FLOP/s (valid range: >= %g FLOP/s)", s, v, float64(MinFLOPS))
	}
	return v, nil
}

var durSuffixes = []struct {
	s string
	m float64
}{
	{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1},
}

// ParseSeconds parses a duration such as "5us", "1.2ms" or "0.001" (seconds).
func ParseSeconds(s string) (float64, error) {
	v, err := parseWithSuffix(s, durSuffixes)
	if err != nil {
		return 0, fmt.Errorf("duration %q: %w (want e.g. 5us, 1.2ms or seconds as a number)", s, err)
	}
	if v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("duration %q must be non-negative and finite", s)
	}
	return v, nil
}

func parseWithSuffix(s string, suf []struct {
	s string
	m float64
}) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty value")
	}
	mult := 1.0
	for _, x := range suf {
		if strings.HasSuffix(t, x.s) {
			t = strings.TrimSpace(strings.TrimSuffix(t, x.s))
			mult = x.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("not a number")
	}
	return v * mult, nil
}

// Bytes formats a size with a binary suffix, e.g. "31.9 GiB".
func Bytes(b int64) string {
	f := float64(b)
	switch a := math.Abs(f); {
	case a >= 1<<40:
		return fmt.Sprintf("%.2f TiB", f/(1<<40))
	case a >= 1<<30:
		return fmt.Sprintf("%.2f GiB", f/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.2f MiB", f/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.2f KiB", f/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// Seconds formats a duration picking s, ms, us or ns.
func Seconds(t float64) string {
	switch a := math.Abs(t); {
	case a == 0:
		return "0 s"
	case a >= 1:
		return fmt.Sprintf("%.3f s", t)
	case a >= 1e-3:
		return fmt.Sprintf("%.3f ms", t*1e3)
	case a >= 1e-6:
		return fmt.Sprintf("%.3f us", t*1e6)
	}
	return fmt.Sprintf("%.1f ns", t*1e9)
}

// Rate formats a bandwidth in GB/s (decimal, as vendors quote it).
func Rate(bps float64) string { return fmt.Sprintf("%.2f GB/s", bps/1e9) }
