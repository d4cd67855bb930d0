package strictyaml

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type file struct {
		Name  string `yaml:"name"`
		Count int    `yaml:"count"`
	}
	tests := []struct {
		name, in, wantErr string
		want              file
	}{
		{"yaml", "name: a\ncount: 3\n", "", file{"a", 3}},
		{"json", `{"name": "b", "count": 4}`, "", file{"b", 4}},
		{"empty", "", "the file is empty (want name and count)", file{}},
		{"comments only", "# nothing\n\n", "the file is empty (want name and count)", file{}},
		{"document marker only", "---\n", "the file is empty (want name and count)", file{}},
		{"null", "null\n", "the file is empty (want name and count)", file{}},
		{"tilde", "~", "the file is empty (want name and count)", file{}},
		{"json null", " null ", "the file is empty (want name and count)", file{}},
		{"empty mapping", "{}", "", file{}},
		{"unknown field", "name: a\ncuont: 3\n", `unknown field "cuont"`, file{}},
		{"type", "count: many\n", "cannot unmarshal", file{}},
		{"syntax", "name: [a\n", "yaml:", file{}},
		{"trailing marker", "name: a\ncount: 3\n---\n", "", file{"a", 3}},
		{"not yaml of this kind", "root:x:0:0:root:/root:/bin/bash\n", "line 1: cannot unmarshal !!str a value into strictyaml.file", file{}},
		{"second document", "name: a\n---\nname: b\ncount: 9\n", "line 2: a second YAML document (valid: one document per file)", file{}},
		{"second document broken", "name: a\n---\nname: [b\n", "after the first YAML document", file{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f file
			err := Decode([]byte(tc.in), &f, "name and count")
			if tc.wantErr == "" {
				if err != nil || f != tc.want {
					t.Fatalf("got %+v, %v; want %+v", f, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "root:x") {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestUnknownFieldSuggests: a misspelt field is named with the valid
// fields of its place in the file and the closest one, never with a Go
// type name.
func TestUnknownFieldSuggests(t *testing.T) {
	type dev struct {
		Name   string `yaml:"name"`
		Memory string `yaml:"memory"`
	}
	var v struct {
		Devices []dev `yaml:"devices"`
	}
	err := Decode([]byte("devices:\n  - {name: g0, memroy: 1GiB}\n"), &v, "devices")
	if err == nil {
		t.Fatal("no error for a misspelt field")
	}
	msg := err.Error()
	for _, want := range []string{`line 2: unknown field "memroy"`, "valid: name, memory", `did you mean "memory"?`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "strictyaml.") || strings.Contains(msg, "not found in type") {
		t.Errorf("error %q names a Go type", msg)
	}
}
