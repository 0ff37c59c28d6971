package canary_test

import (
	"os"
	"strings"
	"testing"
)

// docs/writing-tests.md shows readme_test.go; this keeps the two the same (the
// page leaves out imports and the skip guard).
func TestTheWritingTestsPageShowsThisExample(t *testing.T) {
	readme, err := os.ReadFile("../../docs/writing-tests.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	code = code[strings.Index(code, "var space"):]
	guard := code[strings.Index(code, "\tif os.Getenv"):]
	guard = guard[:strings.Index(guard, "\t}\n")+3]
	code = strings.Replace(code, guard, "", 1)
	if !strings.Contains(string(readme), code) {
		t.Errorf("docs/writing-tests.md's example differs from examples/canary/readme_test.go; paste this into the page:\n%s", code)
	}
}
