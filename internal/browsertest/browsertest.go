// Package browsertest finds the headless Chromium that browser tests drive,
// and the directory they keep their screenshots in.
//
// # Known gaps
//
//   - Only Chromium: no other browser is tried.
package browsertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Chromium is the headless browser a test drives: $CTRLSIM_CHROMIUM (which
// `make test` sets from hack/chromium.sh, installing Debian's chromium package
// when it can), else chromium on the PATH; the test is skipped, saying so,
// when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CTRLSIM_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("CTRLSIM_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIP: no headless Chromium here: this browser test did not run " +
		"(`make test` installs Debian's chromium package where it can: hack/chromium.sh)")
	return ""
}

// Artifacts is where a test keeps its screenshots: $CTRLSIM_ARTIFACTS, else
// ctrlsim-artifacts under the system's temporary directory (never the repo).
func Artifacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("CTRLSIM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ctrlsim-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
