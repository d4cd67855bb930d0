package units

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		f    func(string) (float64, error)
		want float64
		bad  bool
	}{
		{"16GiB", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 16 << 30, false},
		{"1.5GB", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 1.5e9, false},
		{"-1", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"lots", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"25GB/s", ParseRate, 25e9, false},
		{"100Gb/s", ParseRate, 12.5e9, false},
		{"100Gbps", ParseRate, 12.5e9, false},
		{"0GB/s", ParseRate, 0, true},
		{"15.7TFLOPS", ParseFLOPS, 15.7e12, false},
		{"5us", ParseSeconds, 5e-6, false},
		{"1.2ms", ParseSeconds, 1.2e-3, false},
		{"-3s", ParseSeconds, 0, true},
		// issue 31: the wrong dimension, fractional bytes, absurd rates
		{"5GB", ParseRate, 0, true},
		{"5GiB", ParseRate, 0, true},
		{"12.5e9", ParseRate, 12.5e9, false},
		{"1e-300GB/s", ParseRate, 0, true},
		{"0.5", ParseRate, 0, true},
		{"1e-300", ParseFLOPS, 0, true},
		{"5GB/s", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"1.5B", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"1.5", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"1.5KiB", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 1536, false},
		{"1PiB", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 1 << 50, false},
		{"8EiB", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
		{"1e30", func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, err := tc.f(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("%q parsed as %g, want an error", tc.in, v)
				}
				return
			}
			if err != nil || v < tc.want*(1-1e-12) || v > tc.want*(1+1e-12) {
				t.Fatalf("%q = %g, %v; want %g", tc.in, v, err, tc.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	if s := Bytes(3 << 30); s != "3.00 GiB" {
		t.Fatal(s)
	}
	if s := Seconds(0.0025); s != "2.500 ms" {
		t.Fatal(s)
	}
}
