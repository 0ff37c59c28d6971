package reference_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The reference run's writes are the stale restarts' targets: every change
// the apiserver committed in the fault phase to a kind the world collects,
// with its resourceVersion and kind, in commit order, deletions included.
func TestTheReferenceRunsCommittedChangesAreStaleTargets(t *testing.T) {
	createThenDelete := func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if err := optest.Child()(ctx, c, app); err != nil {
			return err
		}
		return client.IgnoreNotFound(c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}))
	}
	w, err := search.NewWorld(optest.AppOptions(createThenDelete).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := reference.RunOnce(w, t, &plan.Plan{Seed: 1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tg := reference.TargetsOf(w, res)
	var secrets []plan.Write
	for _, x := range tg.Writes {
		if x.Kind == "/v1/Secret" {
			secrets = append(secrets, x)
		}
	}
	if len(secrets) < 2 {
		t.Fatalf("the Secret's create and delete are not both targets: %+v", tg.Writes)
	}
	// Each is a change of the watch log, at its resourceVersion.
	for _, x := range secrets {
		found := false
		for _, ev := range res.Log {
			found = found || (ev.ResourceVersion == x.RV && ev.GVK.Kind == "Secret" && ev.At.Sub(res.Start) == x.At)
		}
		if !found {
			t.Errorf("target %+v is no change of the watch log", x)
		}
	}
	for i := 1; i < len(tg.Writes); i++ {
		if tg.Writes[i].RV <= tg.Writes[i-1].RV {
			t.Errorf("the writes are not in commit order: %+v then %+v", tg.Writes[i-1], tg.Writes[i])
		}
	}
}

// What the cluster held before the test's set-up is not a target: the
// namespaces' content from the cluster's bootstrap (each namespace's
// default ServiceAccount and kube-root-ca.crt ConfigMap, in the log before
// time starts) has no write of the run, no view frozen among its versions
// and no watch withholding it, where the seed objects (the test's set-up,
// the admin's writes) are targets, and the content written during the run
// (a namespace's made then, here by the workload's script) is.
func TestTheClustersBootstrapIsNoStaleTarget(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Workload.Steps = []world.StepKind{}
	o.Workload.Script = []world.Step{world.Create(2*time.Second, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "late"}})}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Seed: 1}
	for _, s := range w.Space.Workload.Example(0) {
		if s.Script {
			p.Steps = append(p.Steps, s)
		}
	}
	_, res, err := reference.RunOnce(w, t, p, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.SetUp == 0 || !slices.ContainsFunc(res.Log[:res.SetUp], func(ev apiserver.Event) bool { return ev.Object.GetName() == "kube-root-ca.crt" }) {
		t.Fatalf("the log's %d events before time started hold no kube-root-ca.crt", res.SetUp)
	}
	var content []string
	seed := false
	for _, x := range reference.TargetsOf(w, res).Writes {
		seed = seed || x.Object == "team/app" && x.Change == plan.Created && x.At == 0
		if strings.HasSuffix(x.Object, "/kube-root-ca.crt") || strings.HasSuffix(x.Object, "/default") {
			content = append(content, x.Object)
		}
	}
	if !seed {
		t.Errorf("the seed's creation is no target")
	}
	if !slices.Equal(content, []string{"late/default", "late/kube-root-ca.crt"}) && !slices.Equal(content, []string{"late/kube-root-ca.crt", "late/default"}) {
		t.Errorf("the namespace content among the targets: %v, want namespace late's alone", content)
	}
}
