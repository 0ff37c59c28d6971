package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kubebuilder-shaped project: two API groups (one imported by main.go,
// one not), two controllers and a webhook wired in cmd/main.go (one
// reconciler with a field main.go sets from its own variable), a namespaced
// and a cluster-scoped CRD, and samples. Nothing here is compiled: the
// adopter test (internal/adopter) compiles and runs a scaffolded test.
var kubebuilderProject = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.26.0\n",
	"api/v1/groupversion_info.go": `package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "shop.example.com", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)
`,
	"api/v1/cart_types.go": "package v1\n\ntype Cart struct{}\n",
	"apis/billing/v1alpha1/register.go": `package v1alpha1

import "k8s.io/apimachinery/pkg/runtime"

func AddToScheme(s *runtime.Scheme) error { return nil }
`,
	"internal/controller/cart_controller.go":   "package controller\n\ntype CartReconciler struct{}\n",
	"internal/controller/region_controller.go": "package controller\n\ntype RegionReconciler struct{}\n",
	"cmd/main.go": `package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	shopv1 "example.com/shop/api/v1"
	"example.com/shop/internal/controller"
	webhookv1 "example.com/shop/internal/webhook/v1"
)

var scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(shopv1.AddToScheme(scheme))
}

func main() {
	mgr, _ := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{Scheme: scheme})
	region := "eu"
	if err := (&controller.CartReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorderFor("cart-controller"),
	}).SetupWithManager(mgr); err != nil {
		panic(err)
	}
	if err := (&controller.RegionReconciler{Client: mgr.GetClient(), Region: region}).SetupWithManager(mgr); err != nil {
		panic(err)
	}
	if err := webhookv1.SetupCartWebhookWithManager(mgr); err != nil {
		panic(err)
	}
	_ = mgr.Start(ctrl.SetupSignalHandler())
}
`,
	"config/crd/bases/shop.example.com_carts.yaml": `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: carts.shop.example.com
spec:
  group: shop.example.com
  names: {kind: Cart, plural: carts}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`,
	"config/crd/bases/shop.example.com_regions.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: regions.shop.example.com
spec:
  group: shop.example.com
  names: {kind: Region, plural: regions}
  scope: Cluster
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`,
	"config/samples/shop_v1_cart.yaml":    "apiVersion: shop.example.com/v1\nkind: Cart\nmetadata:\n  name: cart-sample\n",
	"config/samples/kustomization.yaml":   "resources:\n- shop_v1_cart.yaml\n",
	"internal/webhook/v1/cart_webhook.go": "package v1\n",
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestScaffoldWritesTheProjectsTest(t *testing.T) {
	dir := writeProject(t, kubebuilderProject)
	out, errs, code := ctrlsim(t, "scaffold", "--dir", dir)
	if code != 0 || errs != "" {
		t.Fatalf("scaffold: exit %d, stderr %q", code, errs)
	}
	file := filepath.Join(dir, "internal", "controller", "ctrlsim_test.go")
	want := "ctrlsim scaffold: wrote internal/controller/ctrlsim_test.go (3 controllers and webhooks in 1 Manager(s), 3 scheme packages, 2 CRD files, 1 sample files); run it: go test ./internal/controller -run '^TestOperatorUnderFaults$'\n"
	if out != want {
		t.Errorf("scaffold printed %q, want %q", out, want)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	f, err := parser.ParseFile(token.NewFileSet(), file, b, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("the written test does not parse: %v\n%s", err, src)
	}
	if f.Name.Name != "controller_test" {
		t.Errorf("package %s, want controller_test (the external test package of internal/controller)", f.Name.Name)
	}
	for _, want := range []string{
		`shopv1 "example.com/shop/api/v1"`,
		`billingv1alpha1 "example.com/shop/apis/billing/v1alpha1"`, // not in main.go's scheme: found under apis/
		`"example.com/shop/internal/controller"`,
		`webhookv1 "example.com/shop/internal/webhook/v1"`,
		"utilruntime.Must(shopv1.AddToScheme(scheme))",
		"utilruntime.Must(billingv1alpha1.AddToScheme(scheme))",
		`CRDFiles: []string{"../../config/crd/bases/*.yaml"}`,
		`{Name: "controller-manager", Setup: func(mgr manager.Manager) error {`,
		"Recorder: mgr.GetEventRecorderFor(\"cart-controller\"),",
		"}).SetupWithManager(mgr); err != nil {",
		"// Region: cmd/main.go sets it to region (from its own region): set it here.",
		"if err := webhookv1.SetupCartWebhookWithManager(mgr); err != nil {",
		`"../../config/samples/shop_v1_cart.yaml",`,
		`{Group: "shop.example.com", Kind: "Region"}: true,`,
		"func TestOperatorUnderFaults(t *testing.T) {",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the written test lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "kustomization") || strings.Contains(src, "Region: region") {
		t.Errorf("the written test reads kustomization.yaml or uses main.go's variable:\n%s", src)
	}

	// It is not overwritten, unless --force.
	_, errs, code = ctrlsim(t, "scaffold", "--dir", dir)
	if code != 2 || strings.TrimSpace(errs) != "ctrlsim scaffold: internal/controller/ctrlsim_test.go exists (--force overwrites it)" {
		t.Errorf("scaffold again: exit %d, stderr %q; want exit 2, the file exists", code, errs)
	}
	if _, errs, code = ctrlsim(t, "scaffold", "--dir", dir, "--force", "--manager-per-controller", "--name", "TestShop"); code != 0 {
		t.Fatalf("scaffold --force: exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(file)
	for _, want := range []string{`{Name: "cart-manager"`, `{Name: "region-manager"`, `{Name: "cartwebhook-manager"`, "func TestShop(t *testing.T) {"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--manager-per-controller --name TestShop: the written test lacks %q:\n%s", want, b)
		}
	}

	// --out elsewhere: a directory with no Go package gets a package of its own.
	if err := os.MkdirAll(filepath.Join(dir, "test", "faults"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errs, code = ctrlsim(t, "scaffold", "--dir", dir, "--out", "test/faults/operator_test.go"); code != 0 {
		t.Fatalf("scaffold --out: exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "test", "faults", "operator_test.go"))
	for _, want := range []string{"package faults_test", `"../../config/samples/shop_v1_cart.yaml"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--out test/faults/operator_test.go lacks %q:\n%s", want, b)
		}
	}
}

func TestScaffoldBadInputExitsTwoWithOneLine(t *testing.T) {
	project := writeProject(t, kubebuilderProject)
	noMain := writeProject(t, map[string]string{"go.mod": "module example.com/x\n"})
	noWiring := writeProject(t, map[string]string{"go.mod": "module example.com/x\n", "cmd/main.go": "package main\n\nfunc main() {}\n"})
	broken := writeProject(t, map[string]string{"go.mod": "module example.com/x\n", "cmd/main.go": "package main\n\nfunc main() {\n"})
	localType := writeProject(t, map[string]string{"go.mod": "module example.com/x\n",
		"cmd/main.go": "package main\n\nfunc main() { _ = (&R{}).SetupWithManager(mgr) }\n"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scaffold", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"scaffold", "--dir", project, "extra"}, `unexpected argument "extra"`},
		{[]string{"scaffold", "--dir", "/does/not/exist"}, "--dir /does/not/exist: no such directory"},
		{[]string{"scaffold", "--dir", t.TempDir()}, "has no go.mod"},
		{[]string{"scaffold", "--dir", noMain}, "has neither cmd/main.go nor main.go"},
		{[]string{"scaffold", "--dir", noWiring}, "cmd/main.go wires no controller"},
		{[]string{"scaffold", "--dir", broken}, "expected '}', found 'EOF'"},
		{[]string{"scaffold", "--dir", localType}, "the reconciler type is not from an imported package"},
		{[]string{"scaffold", "--dir", project, "--name", "Operator"}, `bad --name "Operator"`},
		{[]string{"scaffold", "--dir", project, "--out", "ctrlsim.go"}, "a test file's name ends in _test.go"},
		{[]string{"scaffold", "--dir", project, "--out", "nowhere/x_test.go"}, "no directory"},
	} {
		out, errs, code := ctrlsim(t, tc.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("ctrlsim %v: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tc.args, code, errs, out, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "internal", "controller", "ctrlsim_test.go")); err == nil {
		t.Error("a refused scaffold wrote the test")
	}
}
