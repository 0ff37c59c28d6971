package lint

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedFile is the largest file the repository may track. The catalogue's inspector pages
// are the largest generated files (under 1 MiB each); a build output such as the ctrlsim
// binary (about 70 MiB) is far past it. A session's submission is refused whole when its diffs
// add up to more than 256 MiB, and a rebuilt binary committed a few times did exactly that once.
const maxTrackedFile = 2 << 20

// trackedFiles returns the module root and the files git tracks there (relative,
// slash-separated), and skips the test outside a git checkout.
func trackedFiles(t *testing.T) (root string, names []string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, _, err = moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing to check", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if name != "" {
			names = append(names, name)
		}
	}
	return root, names
}

// TestRepositoryTracksNoBuildOutputs fails on a tracked file over maxTrackedFile or a tracked
// executable binary (ELF, Mach-O, PE), naming the file.
func TestRepositoryTracksNoBuildOutputs(t *testing.T) {
	root, names := trackedFiles(t)
	magics := [][]byte{{0x7f, 'E', 'L', 'F'}, {0xcf, 0xfa, 0xed, 0xfe}, {'M', 'Z'}}
	for _, name := range names {
		path := filepath.Join(root, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		if fi.Size() > maxTrackedFile {
			t.Errorf("%s: %d bytes tracked, over the %d-byte limit (build outputs belong in .gitignore)", name, fi.Size(), maxTrackedFile)
			continue
		}
		head := make([]byte, 4)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s: a tracked executable binary (build outputs belong in .gitignore)", name)
			}
		}
	}
}
