package twowrites_test

import (
	"os"
	"strings"
	"testing"
)

// README.md and docs/writing-tests.md show this package's test with its
// options inline: each line they show of the options is a line of
// twowrites_test.go's options (the buggy operator's: Fixed left out), so
// that the example a newcomer reads first is the one that runs.
func TestTheREADMEShowsThisTest(t *testing.T) {
	src, err := os.ReadFile("twowrites_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := strings.ReplaceAll(string(src), ", Fixed: fixed}", "}")
	// The lines the docs write around the options, not in options().
	frame := map[string]bool{"func TestTheBuggyOperator(t *testing.T) {": true, "operatortest.Run(t, operatortest.Options{": true, "})": true, "}": true}
	for _, doc := range []string{"../../README.md", "../../docs/writing-tests.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		at := strings.Index(text, "examples/twowrites/twowrites_test.go")
		start := strings.Index(text[max(at, 0):], "```go\n")
		if at < 0 || start < 0 {
			t.Fatalf("%s: no ```go block after its link to examples/twowrites/twowrites_test.go", doc)
		}
		block := text[at+start+len("```go\n"):]
		block = block[:strings.Index(block, "```")]
		shown := 0
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || frame[line] {
				continue
			}
			shown++
			if !strings.Contains(code, line) {
				t.Errorf("%s shows %q, which twowrites_test.go's options do not have: paste them again", doc, line)
			}
		}
		if shown < 5 {
			t.Errorf("%s: %d lines of the options shown, want the whole of them", doc, shown)
		}
	}
}
