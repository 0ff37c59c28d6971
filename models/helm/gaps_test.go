package helm_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/helm"
)

func fieldNames(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Name)
	}
	return out
}

func TestAChartIsItsRenderedObjectsAndAHookIsOneOfThem(t *testing.T) {
	if got, want := fieldNames(helm.Chart{}), []string{"Name", "Version", "Objects"}; !slices.Equal(got, want) {
		t.Errorf("Chart has fields %v, want %v (no templates, values, hooks, ...)", got, want)
	}
	e := newEnv(t)
	c := chartV1()
	hook := configMap("pre", map[string]string{"k": "v"})
	hook.Annotations = map[string]string{"helm.sh/hook": "pre-install"}
	c.Objects = append(c.Objects, hook)
	rel := e.install(c)
	if !strings.Contains(rel.Manifest, `"name":"pre"`) {
		t.Error("the hook is not in the manifest, want it applied as any object (helm keeps hooks apart)")
	}
	if _, ok := e.configMap("pre"); !ok {
		t.Error("the hook object was not created with the others")
	}
}

func TestAMapKeyTheNewChartDropsIsLeftInPlace(t *testing.T) {
	e := newEnv(t)
	e.install(&helm.Chart{Name: "op", Version: "1.0.0", Objects: []client.Object{configMap("c", map[string]string{"a": "1", "b": "2"})}})
	e.upgrade(&helm.Chart{Name: "op", Version: "2.0.0", Objects: []client.Object{configMap("c", map[string]string{"a": "1"})}})
	cm, _ := e.configMap("c")
	if cm.Data["b"] != "2" {
		t.Errorf("data %v after an upgrade to a chart without b: want b kept (helm's three-way merge removes it)", cm.Data)
	}
	// Nothing to patch: the object is read once (helm reads it once more).
	e.upgrade(&helm.Chart{Name: "op", Version: "3.0.0", Objects: []client.Object{configMap("c", map[string]string{"a": "1"})}})
	if _, err := e.h.Upgrade(ctx, "app", &helm.Chart{Name: "op", Version: "4.0.0", Objects: []client.Object{configMap("c", map[string]string{"a": "1"})}}, helm.UpgradeOptions{}); err != nil {
		t.Fatal(err)
	}
	calls := e.calls()
	if n := strings.Count(strings.Join(calls, "\n"), "get ConfigMap c"); n != 1 || slices.Contains(calls, "patch ConfigMap c") {
		t.Errorf("an upgrade that changes nothing: calls %v, want one read of c and no patch", calls)
	}
}

func TestObjectsOfOneKindAreAppliedOneAtATimeInManifestOrder(t *testing.T) {
	e := newEnv(t)
	c := &helm.Chart{Name: "op", Version: "1.0.0", Objects: []client.Object{
		configMap("b", nil), configMap("a", nil), configMap("c", nil)}}
	// list, 3 gets, create the record, create b: the crash is at the create of a.
	e.c.crashAt = 7
	if !run(func() { _, _ = e.h.Install(ctx, "app", c, helm.InstallOptions{}) }) {
		t.Fatal("the install was not interrupted")
	}
	if got, want := e.calls()[5:], []string{"create ConfigMap b"}; !slices.Equal(got, want) {
		t.Errorf("object calls before the crash %v, want %v", got, want)
	}
	_, b := e.configMap("b")
	_, a := e.configMap("a")
	if !b || a {
		t.Errorf("after a crash at the second create: b %v, a %v; want b alone", b, a)
	}
}

func TestACancelledContextStillDeploys(t *testing.T) {
	e := newEnv(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	rel, err := e.h.Install(cancelled, "app", chartV1(), helm.InstallOptions{})
	if err != nil || rel.Info.Status != helm.StatusDeployed {
		t.Fatalf("install with a cancelled context: %v, %v; want deployed (helm marks it failed)", rel, err)
	}
}

func TestRollbackWaitsForExistenceOnly(t *testing.T) {
	if got, want := fieldNames(helm.InstallOptions{}), []string{"DryRun", "Labels"}; !slices.Equal(got, want) {
		t.Errorf("InstallOptions has fields %v, want %v (no Wait)", got, want)
	}
	if got, want := fieldNames(helm.UpgradeOptions{}), []string{"DryRun", "Labels"}; !slices.Equal(got, want) {
		t.Errorf("UpgradeOptions has fields %v, want %v (no Wait)", got, want)
	}
	e := newEnv(t)
	e.install(chartV1())
	e.upgrade(chartV2())
	start := e.clock.Now()
	if err := e.h.Rollback(ctx, "app", helm.RollbackOptions{Wait: true, Timeout: 30 * time.Second}); err != nil {
		t.Fatalf("rollback with Wait of a Deployment no pod backs: %v, want it ready at once", err)
	}
	var d appsv1.Deployment
	if err := e.c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "op"}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Status.AvailableReplicas != 0 || e.clock.Since(start) != 0 {
		t.Errorf("available %d, waited %v; want 0 available and no wait", d.Status.AvailableReplicas, e.clock.Since(start))
	}
}

func TestReleaseNamesAndCustomLabelsAreNotValidated(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("a", 60) // helm: at most 53 characters
	if _, err := e.h.Install(ctx, long, chartV1(), helm.InstallOptions{}); err != nil {
		t.Errorf("install of a %d-character name: %v, want it installed", len(long), err)
	}
	e = newEnv(t)
	rel, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{Labels: map[string]string{"owner": "me"}})
	if err != nil || rel.Labels["owner"] != "me" {
		t.Errorf("install with the reserved label owner: %v, labels %v; want it installed with the label", err, rel)
	}
}
