package native_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"placesim/workloads/native"
)

// TestStringsDecodeLikeEncodingJSON checks that names decode as
// encoding/json decodes them: escapes, surrogates and bad UTF-8.
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

// TestSyntaxErrorsPositioned checks that malformed JSON is refused with
// the line, column and byte offset of the fault.
func TestSyntaxErrorsPositioned(t *testing.T) {
	for _, lit := range []string{`"a\x"`, `"a` + "\n" + `"`, `01`, `1.`, `1e`, `-`, `tru`, `[1,]`, `{"a":1,}`, `"\u12"`, `{"a" 1}`, `[1 2]`} {
		t.Run(lit, func(t *testing.T) {
			if json.Valid([]byte(lit)) {
				t.Fatalf("%s is valid JSON; bad test", lit)
			}
			doc := "{\"format\": \"placesim-workload\", \"version\": 1, \"batch\": 1,\n\"ops\": [{\"name\": \"a\", \"type\": " + lit + `}]}`
			_, err := native.Parse([]byte(doc), "s.json")
			if err == nil {
				t.Fatal("accepted invalid JSON")
			}
			msg := err.Error()
			if !strings.Contains(msg, `workload "s.json": line 2`) || !strings.Contains(msg, "ops[0]") {
				t.Fatalf("error %q lacks the line or the field path", msg)
			}
			if !strings.Contains(msg, "JSON syntax error at byte offset") && !strings.Contains(msg, "want a string") {
				t.Fatalf("error %q is neither a positioned syntax error nor a type error", msg)
			}
		})
	}
}

// TestSyntaxErrorColumn checks the column and offset of a syntax error
// against the position of the bad byte.
func TestSyntaxErrorColumn(t *testing.T) {
	doc := "{\"format\": \"placesim-workload\",\n  \"version\": 1 x}"
	_, err := native.Parse([]byte(doc), "c.json")
	off := strings.IndexByte(doc, 'x')
	col := off - strings.LastIndexByte(doc[:off], '\n')
	for _, want := range []string{"line 2:", fmt.Sprintf("byte offset %d, column %d:", off, col), "invalid character 'x'"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v lacks %q", err, want)
		}
	}
}

// TestManyKeysLinear reads an op with 50,000 measured device kinds: the
// duplicate-key check must not be quadratic (a quadratic one takes
// minutes here; this is a correctness test, not a timed one).
func TestManyKeysLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format": "placesim-workload", "version": 1, "batch": 1, "ops": [{"name": "a", "measured": {`)
	const n = 50000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d": 1`, i)
	}
	b.WriteString(`}}]}`)
	g, err := native.Parse([]byte(b.String()), "many.json")
	if err != nil || len(g.Ops[0].Measured) != n {
		t.Fatalf("err %v", err)
	}
	dup := strings.Replace(b.String(), `"k49999"`, `"k17"`, 1)
	if _, err := native.Parse([]byte(dup), "dup.json"); err == nil || !strings.Contains(err.Error(), `ops[0].measured.k17: field given twice`) {
		t.Fatalf("duplicate key among many: %v", err)
	}
}

// TestOverflowingSizes checks that sizes whose sum wraps int64 are bad
// input naming the field (issue 19: outputBytes 2^63-1 was an OOM of
// 4194304 TiB).
func TestOverflowingSizes(t *testing.T) {
	tests := []struct{ name, ops, edges, want string }{
		{"output bytes", fmt.Sprintf(`{"name": "a", "outputBytes": %d}, {"name": "b", "outputBytes": 1}`, int64(math.MaxInt64)), "", "ops[1].outputBytes = 1"},
		{"output then param", fmt.Sprintf(`{"name": "a", "outputBytes": %d, "paramBytes": 1}`, int64(math.MaxInt64)), "", "ops[0].paramBytes = 1"},
		{"edge bytes", `{"name": "a", "outputBytes": 8}, {"name": "b"}`, fmt.Sprintf(`{"from": "a", "to": "b", "bytes": %d}`, int64(math.MaxInt64)), "edges[0].bytes = 9223372036854775807"},
		{"flops", `{"name": "a", "flops": 1.7e308}, {"name": "b", "flops": 1.7e308}`, "", "ops[1].flops = 1.7e+308): the graph's total FLOPs is not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := native.Parse([]byte(doc(tc.ops, tc.edges)), "big.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `workload "big.json": `) {
				t.Fatalf("error %v, want one naming the file and %q", err, tc.want)
			}
		})
	}
}
