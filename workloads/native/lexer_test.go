package native_test

import (
	"encoding/json"
	"testing"

	"placesim/workloads/native"
)

// TestStringsDecodeLikeEncodingJSON checks the hand-written lexer's string
// decoding against encoding/json on escapes, surrogates and bad UTF-8.
func TestStringsDecodeLikeEncodingJSON(t *testing.T) {
	tests := []struct{ name, lit string }{
		{"plain", `"fc1/matmul"`},
		{"escapes", `"a\"b\\c\/d\b\f\n\r\t"`},
		{"unicode escape", `"caf\u00e9"`},
		{"surrogate pair", `"smile \ud83d\ude00"`},
		{"lone high surrogate", `"x\ud800y"`},
		{"lone low surrogate", `"x\udc00y"`},
		{"high then non-surrogate escape", `"\ud800\u0041"`},
		{"raw UTF-8", `"ü€𝄞"`},
		{"invalid UTF-8", "\"a\xffb\xc3\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want string
			if err := json.Unmarshal([]byte(tc.lit), &want); err != nil {
				t.Fatal(err)
			}
			doc := `{"format": "placesim-workload", "version": 1, "batch": 1, "ops": [{"name": ` + tc.lit + `}]}`
			g, err := native.Parse([]byte(doc), "s.json")
			if err != nil {
				t.Fatal(err)
			}
			if g.Ops[0].Name != want {
				t.Fatalf("name %q, encoding/json gives %q", g.Ops[0].Name, want)
			}
		})
	}
}

func TestSyntaxErrorsLikeEncodingJSON(t *testing.T) {
	for _, lit := range []string{`"a\x"`, `"a` + "\n" + `"`, `01`, `1.`, `1e`, `-`, `tru`, `[1,]`, `{"a":1,}`, `"\u12"`} {
		t.Run(lit, func(t *testing.T) {
			if json.Valid([]byte(lit)) {
				t.Fatalf("%s is valid JSON; bad test", lit)
			}
			doc := `{"format": "placesim-workload", "version": 1, "batch": 1, "ops": [{"name": "a", "type": ` + lit + `}]}`
			if _, err := native.Parse([]byte(doc), "s.json"); err == nil {
				t.Fatal("accepted invalid JSON")
			}
		})
	}
}
