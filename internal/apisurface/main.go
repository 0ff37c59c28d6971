package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is ctrlsim's module path; Record is where its surface is recorded,
// from the module's root.
const (
	Module = "github.com/ctrlsim/ctrlsim"
	Record = "api/ctrlsim.txt"
)

func main() {
	write := flag.Bool("write", false, "record the current surface in "+Record)
	flag.Parse()
	root, err := moduleRoot()
	if err == nil {
		err = run(root, *write)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apisurface:", err)
		os.Exit(1)
	}
}

// run checks (or, with write, records) the surface of Faces in the module
// at root.
func run(root string, write bool) error {
	current, err := Surface(root, Module, Faces...)
	if err != nil {
		return err
	}
	file := filepath.Join(root, Record)
	if write {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		return os.WriteFile(file, []byte(strings.Join(current, "\n")+"\n"), 0o644)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return Check(parse(data), current)
}

func parse(data []byte) []string {
	var out []string
	for l := range strings.SplitSeq(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Check is nil when current keeps every recorded line and adds none; else
// an error that lists both and says what to do.
func Check(recorded, current []string) error {
	removed, added := Diff(recorded, current)
	var msg []string
	if len(removed) > 0 {
		msg = append(msg, fmt.Sprintf("%d recorded name(s) of the public API are gone, which breaks the tests written against them: keep each as a deprecated alias (// Deprecated: use X) and say what moved in docs/CHANGELOG.md:\n\t%s",
			len(removed), strings.Join(removed, "\n\t")))
	}
	if len(added) > 0 {
		msg = append(msg, fmt.Sprintf("%d name(s) of the public API are not recorded in %s: record them with `make api` (go run ./internal/apisurface -write):\n\t%s",
			len(added), Record, strings.Join(added, "\n\t")))
	}
	if msg == nil {
		return nil
	}
	return errors.New(strings.Join(msg, "\n"))
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
