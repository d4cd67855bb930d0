package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"nvlnk", "nvlink", 1}, {"memroy", "memory", 1}, {"corasen", "coarsen", 1}, {"ca", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		s     string
		valid []string
		want  string
	}{
		{"layer", []string{"batch", "layers", "hidden"}, "layers"},
		{"4xV100-pci", []string{"1xV100", "4xV100-pcie", "8xV100-nvlink"}, "4xV100-pcie"},
		{"memroy", []string{"name", "kind", "memory"}, "memory"},
		{"nvlnk", []string{"pcie", "nvlink"}, "nvlink"},
		{"ab", []string{"xy", "cd"}, ""},             // too short to guess
		{"zzzzzzzz", []string{"memory", "kind"}, ""}, // nothing near
		{"memory", []string{"memory"}, ""},           // not misspelt
		{"coarsne", []string{"coarsen", "range", "memfrac", "priorities"}, "coarsen"},
		{"rnage", []string{"coarsen", "range", "memfrac", "priorities"}, "range"},
		{"priorites", []string{"coarsen", "range", "memfrac", "priorities"}, "priorities"},
		{"window", []string{"coarsen", "range", "memfrac", "priorities"}, ""},
		{"", []string{"coarsen", "range"}, ""},
	} {
		if got := Closest(tc.s, tc.valid); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
