package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The public API's surface is the one recorded in api/ctrlsim.txt: no
// recorded name is gone and none is unrecorded.
func TestTheRecordedSurfaceIsCurrent(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := run(root, false); err != nil {
		t.Fatal(err)
	}
}

// surfaceOf writes a module example.com/m of files (path: source) and
// returns the surface of its package face.
func surfaceOf(t *testing.T, files map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := Surface(dir, "example.com/m", "example.com/m/face")
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// The face before the move: ClientGo and ClientGoSetup declared in it.
var beforeTheMove = map[string]string{"face/face.go": `package face

type ClientGo struct {
	Config string
	hidden int
}

func ClientGoSetup(start func(ClientGo) error) error { return start(ClientGo{}) }
`}

// The names moved to face/clientgo; withAlias keeps them in face.
func afterTheMove(withAlias bool) map[string]string {
	face := "package face\n\nfunc Run() {}\n"
	if withAlias {
		face = `package face

import "example.com/m/face/clientgo"

func Run() {}

// Deprecated: use clientgo.Env.
type ClientGo = clientgo.Env

// Deprecated: use clientgo.Setup.
func ClientGoSetup(start func(ClientGo) error) error { return clientgo.Setup(start) }
`
	}
	return map[string]string{
		"face/face.go": face,
		"face/clientgo/clientgo.go": `package clientgo

type Env struct{ Config string }

func Setup(start func(Env) error) error { return start(Env{}) }
`,
	}
}

// A name moved to another package without an alias fails the check, naming
// each line that is gone.
func TestARemovedNameFails(t *testing.T) {
	recorded := surfaceOf(t, beforeTheMove)
	err := Check(recorded, surfaceOf(t, afterTheMove(false)))
	if err == nil {
		t.Fatal("the check passed with ClientGo and ClientGoSetup gone")
	}
	for _, want := range []string{"3 recorded name(s)", "func ClientGoSetup(func(face.ClientGo) error) error", "type ClientGo struct, Config string", "CHANGELOG", "func Run()"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the check's error does not say %q:\n%v", want, err)
		}
	}
}

// The same move with the names kept as aliases in the face passes: an alias
// is recorded by the fields and methods of what it names.
func TestAMovedNameWithAnAliasPasses(t *testing.T) {
	recorded := surfaceOf(t, beforeTheMove)
	current := surfaceOf(t, afterTheMove(true))
	removed, _ := Diff(recorded, current)
	if len(removed) > 0 {
		t.Errorf("the aliases lose %q", removed)
	}
	want := []string{
		"pkg example.com/m/face, func ClientGoSetup(func(face.ClientGo) error) error",
		"pkg example.com/m/face, type ClientGo struct",
		"pkg example.com/m/face, type ClientGo struct, Config string",
	}
	for _, w := range want {
		if !slices.Contains(recorded, w) {
			t.Errorf("the surface lacks %q: %q", w, recorded)
		}
	}
	if err := Check(append(recorded, "pkg example.com/m/face, func Run()"), current); err != nil {
		t.Errorf("the move with aliases fails the check: %v", err)
	}
}

// A signature that changes to one every caller still compiles with is
// reported as removed (a Known gap: the check compares lines, not
// assignability).
func TestAChangedSignatureIsARemovalEvenWhenCallersStillCompile(t *testing.T) {
	before := surfaceOf(t, map[string]string{"face/face.go": "package face\n\nimport \"bytes\"\n\nfunc Read(*bytes.Buffer) {}\n"})
	after := surfaceOf(t, map[string]string{"face/face.go": "package face\n\nimport \"io\"\n\nfunc Read(io.Reader) {}\n"})
	if removed, _ := Diff(before, after); len(removed) != 1 || !strings.Contains(removed[0], "func Read(*bytes.Buffer)") {
		t.Errorf("removed = %q, want the old Read", removed)
	}
}

// Methods promoted from a type of another module are not recorded (a Known
// gap); the module's own are.
func TestPromotedMethodsFromOutsideTheModuleAreNotRecorded(t *testing.T) {
	lines := surfaceOf(t, map[string]string{"face/face.go": `package face

import "strings"

type T struct{ strings.Builder }

func (*T) Mine() {}
`})
	joined := strings.Join(lines, "\n")
	if strings.Contains(joined, "WriteString") || !strings.Contains(joined, "method (*T) Mine()") || !strings.Contains(joined, "type T struct, embedded strings.Builder") {
		t.Errorf("surface:\n%s", joined)
	}
}
