package bundledeployment

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/controllers/bundledeployment/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func gapReplay(t *testing.T, o Options, d time.Duration, text string) *operatortest.Replayed {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	opts := Test(o, d)
	opts.HealBudget = time.Millisecond
	r, err := operatortest.Replay(t, catalogue.ForSpecs(opts), p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The world's failure is the API server refusing the invalid Deployment;
// a kind the cluster does not serve fails in helm before any release record
// is written.
func TestTheFailureIsAnInvalidObjectNotAMissingKind(t *testing.T) {
	r := gapReplay(t, Options{Variant: variant.Robust}, 5*time.Second, "seed 1\nat 0s apply-broken\n") // robust keeps the root cause shown
	var bd bdc.BundleDeployment
	if err := r.Final.Get(client.ObjectKey{Name: Example}, &bd); err != nil {
		t.Fatal(err)
	}
	if msg := FailureMessage(&bd); !strings.Contains(msg, bundletest.RootCause) {
		t.Fatalf("Installed message %q, want the API server's refusal %q", msg, bundletest.RootCause)
	}

	s := sharedScheme()
	c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(s)).Build()
	h := helm.New(helm.Config{Client: c, Clock: clocktesting.NewFakeClock(time.Unix(0, 0)), Namespace: ReleaseNamespace})
	widget := &unstructured.Unstructured{}
	widget.SetAPIVersion("example.com/v1")
	widget.SetKind("Widget")
	widget.SetName("w")
	chart := &helm.Chart{Name: "c", Version: "0.0.0", Objects: []client.Object{widget}}
	if _, err := h.Install(context.Background(), "missing-kind", chart, helm.InstallOptions{}); err == nil {
		t.Fatal("installing a kind the cluster does not serve: no error")
	}
	var secrets corev1.SecretList
	if err := c.List(context.Background(), &secrets); err != nil || len(secrets.Items) != 0 {
		t.Errorf("%d release records (%v) after a missing kind, want none: nothing to uninstall", len(secrets.Items), err)
	}
}

func TestNoStepDeletesABundleDeployment(t *testing.T) {
	var names []string
	for _, d := range Test(Options{Failing: 1}, time.Minute).Workload.Domain {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"apply-broken", "create-bundledeployment", "upgrade"}) {
		t.Errorf("steps %v, want apply-broken, create-bundledeployment and upgrade only", names)
	}
}

func TestTheEntriesDrawNoCrashesAPIFaultsOrFaultsOfKubeControllerManager(t *testing.T) {
	for _, e := range OnOperatortest() {
		for _, v := range e.Variants() {
			f := e.Test(v).Faults
			if slices.Contains(f.Classes, plan.Crash) || slices.Contains(f.Classes, plan.API) || !slices.Equal(f.Processes, []string{Rukpak}) {
				t.Errorf("%s (%s): fault classes %v of %v, want no crash or API fault, of rukpak only", e.ID, v, f.Classes, f.Processes)
			}
		}
	}
}

// v1 and v2 share example's Namespace and ConfigMap, identical: an upgrade
// to v2 and its rollback write neither.
func TestTheBundlesSharedContentIsIdenticalSoARollbackPatchesNothing(t *testing.T) {
	v1, err := Content(V1, Example)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := Content(V2, Example)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v1 {
		if !equality.Semantic.DeepEqual(v1[i], v2[i]) {
			t.Fatalf("v1's %T %s differs in v2", v1[i], v1[i].GetName())
		}
	}
	r := gapReplay(t, Options{Variant: variant.Fixed, Bundle: V1}, 20*time.Second, "seed 1\nat 5s upgrade bd=example bundle=v2\n")
	upgraded := false
	for _, s := range r.Steps {
		upgraded = upgraded || (s.Op == "create" && s.Object == "Namespace example-extra" && s.Result == "ok")
	}
	if !upgraded {
		t.Fatal("the upgrade made no Namespace example-extra")
	}
	for _, s := range r.Steps {
		if s.At >= 5*time.Second && (s.Object == "ConfigMap example/config" || s.Object == "Namespace example") &&
			s.Op != "get" && s.Op != "cached-get" && s.Op != "list" && !strings.HasPrefix(s.Op, "watch") {
			t.Errorf("%s after the upgrade, want no write of the shared content", s)
		}
	}
}
