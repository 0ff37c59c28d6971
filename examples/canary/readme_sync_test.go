package canary_test

import (
	"os"
	"strings"
	"testing"
)

// The README shows readme_test.go; this keeps the two the same (the README leaves
// out imports and the skip guard).
func TestREADMEShowsThisExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
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
		t.Errorf("README.md's example differs from examples/canary/readme_test.go; paste this into the README:\n%s", code)
	}
}
