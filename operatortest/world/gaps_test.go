package world_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// After a Setup that blocks, the world's bubble is left as it deadlocked:
// its cleanups do not run, so KUBECONFIG and http.DefaultTransport still
// route to the simulated cluster once the exploration has returned (run in
// a child process, as it lasts for the rest of the binary).
func TestABlockedSetupLeavesKubeconfigSetForTheRestOfTheBinary(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSetupBlocksAndLeaves$", "-test.v", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), optest.ChildEnv+"=TestChildSetupBlocksAndLeaves")
	cmd.Dir = t.TempDir()
	b, err := cmd.CombinedOutput()
	out := string(b)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("the child did not run (%v):\n%s", err, out)
	}
	if !strings.Contains(out, "cannot start: its Setup did not return") {
		t.Fatalf("the child's exploration did not fail naming the blocked Setup:\n%s", out)
	}
	if !strings.Contains(out, "after: KUBECONFIG set, transport routed") {
		t.Errorf("after the blocked Setup the child's KUBECONFIG and transport are restored; want them left set:\n%s", out)
	}
}

func TestChildSetupBlocksAndLeaves(t *testing.T) {
	optest.ChildOnly(t)
	before, transport := os.Getenv("KUBECONFIG"), http.DefaultTransport
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Setup = func(manager.Manager) error { select {} }
	_, err := search.Explore(t, o)
	t.Log(err)
	kc := os.Getenv("KUBECONFIG")
	t.Logf("after: KUBECONFIG %s, transport %s", map[bool]string{true: "set", false: "restored"}[kc != before && kc != ""],
		map[bool]string{true: "routed", false: "restored"}[http.DefaultTransport != transport])
}

// A world registers CustomResourceDefinitions in the test's own scheme
// (Options.Scheme, shared with whatever else reads it), not in a copy.
func TestAWorldRegistersCRDsInTheTestsOwnScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	crd := apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
	if scheme.Recognizes(crd) {
		t.Fatal("client-go's scheme already has CustomResourceDefinition")
	}
	o := optest.AppOptions(optest.Child())
	o.Scheme = scheme
	if _, err := search.NewWorld(o.WithDefaults()); err != nil {
		t.Fatal(err)
	}
	if !scheme.Recognizes(crd) {
		t.Error("after a world was built, the test's scheme still lacks CustomResourceDefinition; want it registered there")
	}
}

// poller reads its ConfigMap every 15 s (RequeueAfter), as an operator that
// polls what it manages does.
type poller struct{ client.Client }

func (r *poller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{RequeueAfter: 15 * time.Second}, nil
}

// A run waits for the kill its kubelet has scheduled however far ahead: a
// pod with a week's grace whose container ignores SIGTERM makes its run a
// week long, and an operator that polls every 15 s reaches the work bound
// before it (at about 119 h of virtual time): the run is cut, with its note,
// and not judged.
func TestAKillAWeekAheadIsWaitedForUntilTheWorkBound(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&poller{mgr.GetClient()})
	}
	o.Objects = append(o.Objects, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "broker"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](604800),
			Containers: []corev1.Container{{Name: "broker", Image: "registry.example/broker:3.13"}}}})
	o.IgnoreSIGTERM = []string{"broker"}
	_, _, r := optest.RunText(t, o, "seed 1\nat 10s delete object=1\n")
	if len(r.Verdicts) != 1 || r.Verdicts[0].Property != cluster.WorkBoundProperty || !strings.Contains(r.Verdicts[0].Detail, "not judged") {
		t.Fatalf("verdicts %+v: want the work bound's note alone", r.Verdicts)
	}
	if end := r.Steps[len(r.Steps)-1].At; end < 24*time.Hour || end >= 7*24*time.Hour {
		t.Errorf("the run was cut at %v, want past a day and before the week's kill", end)
	}
}
