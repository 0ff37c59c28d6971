package helm_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlsim/ctrlsim/models/helm"
)

const ns = "apps"

var epoch = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)

// errCrash is the panic of a process killed at a client call.
var errCrash = errors.New("crash")

// recorder is a client that logs every call as "verb Kind name", can fail
// chosen calls, and dies (panics with errCrash) instead of making call number
// crashAt, as a process killed there would.
type recorder struct {
	client.Client
	calls   []string
	crashAt int
	fail    map[string]error // by call text
}

func (r *recorder) call(verb string, obj runtime.Object, name string) error {
	gvk, err := apiutil.GVKForObject(obj, r.Scheme())
	if err != nil {
		panic(err)
	}
	s := strings.TrimSpace(fmt.Sprintf("%s %s %s", verb, strings.TrimSuffix(gvk.Kind, "List"), name))
	if len(r.calls)+1 == r.crashAt {
		panic(errCrash)
	}
	r.calls = append(r.calls, s)
	return r.fail[s]
}

func (r *recorder) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := r.call("get", obj, key.Name); err != nil {
		return err
	}
	return r.Client.Get(ctx, key, obj, opts...)
}

func (r *recorder) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := r.call("list", list, ""); err != nil {
		return err
	}
	return r.Client.List(ctx, list, opts...)
}

func (r *recorder) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := r.call("create", obj, obj.GetName()); err != nil {
		return err
	}
	return r.Client.Create(ctx, obj, opts...)
}

func (r *recorder) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := r.call("update", obj, obj.GetName()); err != nil {
		return err
	}
	return r.Client.Update(ctx, obj, opts...)
}

func (r *recorder) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	if err := r.call("patch", obj, obj.GetName()); err != nil {
		return err
	}
	return r.Client.Patch(ctx, obj, p, opts...)
}

func (r *recorder) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := r.call("delete", obj, obj.GetName()); err != nil {
		return err
	}
	return r.Client.Delete(ctx, obj, opts...)
}

// env is a fake cluster with the namespace, a fake clock and the actions.
type env struct {
	t     *testing.T
	c     *recorder
	clock *testingclock.FakeClock
	h     *helm.Helm
}

func newEnv(t *testing.T, objs ...client.Object) *env {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	fc := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(scheme)).
		WithObjects(objs...).Build()
	rec := &recorder{Client: fc, fail: map[string]error{}}
	clk := testingclock.NewFakeClock(epoch)
	return &env{t: t, c: rec, clock: clk, h: helm.New(helm.Config{Client: rec, Clock: clk, Namespace: ns})}
}

// run calls f and reports whether it was killed by the planned crash.
func run(f func()) (crashed bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != errCrash { //nolint:errorlint // the panic value itself
				panic(p)
			}
			crashed = true
		}
	}()
	f()
	return false
}

// calls returns and forgets the calls made so far.
func (e *env) calls() []string {
	c := e.c.calls
	e.c.calls = nil
	return c
}

func (e *env) wantCalls(want ...string) {
	e.t.Helper()
	if got := e.calls(); !slices.Equal(got, want) {
		e.t.Errorf("calls:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// statuses is "v<rev>=<status>" of every record, oldest first.
func (e *env) statuses(name string) string {
	e.t.Helper()
	var list corev1.SecretList
	if err := e.c.Client.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"owner": "helm", "name": name}); err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, s := range list.Items {
		out = append(out, "v"+s.Labels["version"]+"="+s.Labels["status"])
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// configMap reads a ConfigMap of the namespace, if it exists.
func (e *env) configMap(name string) (*corev1.ConfigMap, bool) {
	var cm corev1.ConfigMap
	err := e.c.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return &cm, true
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}

func deployment(image string) *appsv1.Deployment {
	labels := map[string]string{"app": "op"}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "op"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "op", Image: image}}}},
	}}
}

// chartV1 lists its objects out of install order on purpose.
func chartV1() *helm.Chart {
	return &helm.Chart{Name: "op", Version: "1.0.0", Objects: []client.Object{
		deployment("op:v1"),
		configMap("op-config", map[string]string{"version": "1"}),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "op"}},
	}}
}

// chartV2 changes op-config and the Deployment and adds op-migration.
func chartV2() *helm.Chart {
	return &helm.Chart{Name: "op", Version: "2.0.0", Objects: []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "op"}},
		configMap("op-config", map[string]string{"version": "2"}),
		configMap("op-migration", map[string]string{"from": "1"}),
		deployment("op:v2"),
	}}
}

var ctx = context.Background()

func (e *env) install(c *helm.Chart) *helm.Release {
	e.t.Helper()
	rel, err := e.h.Install(ctx, "app", c, helm.InstallOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.calls()
	return rel
}

func (e *env) upgrade(c *helm.Chart) *helm.Release {
	e.t.Helper()
	rel, err := e.h.Upgrade(ctx, "app", c, helm.UpgradeOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.calls()
	return rel
}

// Install (install.go Run): availableName lists the history, every object is
// read for ownership conflicts, the record is created pending-install, the
// objects are created one at a time in helm's install order (ServiceAccount,
// ConfigMap, Deployment), and the record is updated to deployed.
func TestInstallCallSequence(t *testing.T) {
	e := newEnv(t)
	rel, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{Labels: map[string]string{"olm.operatorframework.io/bundle-version": "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret",
		"get ServiceAccount op", "get ConfigMap op-config", "get Deployment op",
		"create Secret sh.helm.release.v1.app.v1",
		"create ServiceAccount op", "create ConfigMap op-config", "create Deployment op",
		"update Secret sh.helm.release.v1.app.v1",
	)
	if rel.Info.Status != helm.StatusDeployed || rel.Version != 1 || rel.Info.Description != "Install complete" {
		t.Errorf("release %+v, want revision 1 deployed", rel)
	}
	var sec corev1.Secret
	if err := e.c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sh.helm.release.v1.app.v1"}, &sec); err != nil {
		t.Fatal(err)
	}
	if sec.Type != helm.SecretType {
		t.Errorf("record type %q, want %q", sec.Type, helm.SecretType)
	}
	want := map[string]string{"owner": "helm", "name": "app", "status": "deployed", "version": "1", "modifiedAt": fmt.Sprint(epoch.Unix())}
	if !maps.Equal(sec.Labels, want) {
		t.Errorf("record labels %v, want the system labels %v (custom labels live in the data)", sec.Labels, want)
	}
	got, err := e.h.Get(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels["olm.operatorframework.io/bundle-version"] != "1.0.0" || got.Labels["owner"] != "" {
		t.Errorf("custom labels %v: want the custom label and no system labels", got.Labels)
	}
	cm, ok := e.configMap("op-config")
	if !ok {
		t.Fatal("op-config was not created")
	}
	if cm.Labels[helm.ManagedByLabel] != "Helm" || cm.Annotations[helm.ReleaseNameAnnotation] != "app" || cm.Annotations[helm.ReleaseNamespaceAnnotation] != ns {
		t.Errorf("op-config metadata %v %v: want helm's ownership metadata", cm.Labels, cm.Annotations)
	}
}

// existingResourceConflict: an object that exists without this release's
// ownership metadata cannot be imported; nothing is recorded.
func TestInstallRefusesAnObjectItDoesNotOwn(t *testing.T) {
	e := newEnv(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "op-config",
		Annotations: map[string]string{helm.ReleaseNameAnnotation: "other"}}})
	_, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{})
	want := `Unable to continue with install: ConfigMap "op-config" in namespace "apps" exists and cannot be imported into the current release: ` +
		`invalid ownership metadata; label validation error: missing key "app.kubernetes.io/managed-by": must be set to "Helm"; ` +
		`annotation validation error: key "meta.helm.sh/release-name" must equal "app": current value is "other"; ` +
		`annotation validation error: missing key "meta.helm.sh/release-namespace": must be set to "apps"`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n  %v\nwant:\n  %s", err, want)
	}
	if s := e.statuses("app"); s != "" {
		t.Errorf("records %q, want none", s)
	}
}

// An object carrying this release's ownership metadata is adopted: install
// reads each object and creates or patches it (kube.Client.Update).
func TestInstallAdoptsAnObjectWithMatchingOwnership(t *testing.T) {
	e := newEnv(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "op-config",
		Labels:      map[string]string{helm.ManagedByLabel: "Helm"},
		Annotations: map[string]string{helm.ReleaseNameAnnotation: "app", helm.ReleaseNamespaceAnnotation: ns}},
		Data: map[string]string{"version": "0"}})
	if _, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret",
		"get ServiceAccount op", "get ConfigMap op-config", "get Deployment op",
		"create Secret sh.helm.release.v1.app.v1",
		"get ServiceAccount op", "create ServiceAccount op",
		"get ConfigMap op-config", "patch ConfigMap op-config",
		"get Deployment op", "create Deployment op",
		"update Secret sh.helm.release.v1.app.v1",
	)
	if cm, _ := e.configMap("op-config"); cm.Data["version"] != "1" {
		t.Errorf("adopted op-config data %v, want version 1", cm.Data)
	}
}

// availableName: without Replace, any revision makes the name unavailable.
func TestInstallRefusesANameInUse(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	_, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{})
	if err == nil || err.Error() != "cannot re-use a name that is still in use" {
		t.Fatalf("error %v, want the name in use", err)
	}
}

// A dry-run install checks conflicts (one get per object) and writes nothing.
func TestDryRunInstallWritesNothing(t *testing.T) {
	e := newEnv(t)
	rel, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	e.wantCalls("get ServiceAccount op", "get ConfigMap op-config", "get Deployment op")
	if rel.Info.Status != helm.StatusPendingInstall || rel.Manifest == "" {
		t.Errorf("dry-run release %+v, want the pending-install release with its manifest", rel.Info)
	}
}

// Upgrade (upgrade.go): Last, a conflict check of the objects new in the
// target, the new record pending-upgrade, a get and create/patch per target
// object, the previous revision superseded, then the new one deployed.
func TestUpgradeCallSequence(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.clock.Step(time.Minute)
	rel, err := e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret",
		"get ConfigMap op-migration",
		"create Secret sh.helm.release.v1.app.v2",
		"get ServiceAccount op",
		"get ConfigMap op-config", "patch ConfigMap op-config",
		"get ConfigMap op-migration", "create ConfigMap op-migration",
		"get Deployment op", "patch Deployment op",
		"update Secret sh.helm.release.v1.app.v1",
		"update Secret sh.helm.release.v1.app.v2",
	)
	if rel.Version != 2 || rel.Info.Status != helm.StatusDeployed || !rel.Info.FirstDeployed.Equal(epoch) || !rel.Info.LastDeployed.Equal(epoch.Add(time.Minute)) {
		t.Errorf("release %d %+v, want revision 2 deployed, first deployed at the install", rel.Version, rel.Info)
	}
	if s := e.statuses("app"); s != "v1=superseded v2=deployed" {
		t.Errorf("records %s", s)
	}
}

// KubeClient.Update deletes what the current manifest has and the target does
// not (a get, then a delete).
func TestUpgradeDeletesObjectsTheTargetDropped(t *testing.T) {
	e := newEnv(t)
	e.install(chartV2())
	e.upgrade(chartV1())
	if _, ok := e.configMap("op-migration"); ok {
		t.Error("op-migration is still there after an upgrade to a chart without it")
	}
}

// prepareUpgrade: with a pending last revision, Upgrade fails with errPending,
// dry runs included, before any write.
func TestUpgradeOfAPendingReleaseIsAnotherOperationInProgress(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.c.crashAt = 4 // list, get op-migration, create the v2 record; crash at the first get of the update
	if !run(func() { _, _ = e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{}) }) {
		t.Fatal("the upgrade was not interrupted")
	}
	e.c.crashAt = 0
	e.calls()
	for _, dry := range []bool{false, true} {
		_, err := e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{DryRun: dry})
		if !errors.Is(err, helm.ErrPending) || err.Error() != "another operation (install/upgrade/rollback) is in progress" {
			t.Errorf("dry run %v: error %v, want errPending", dry, err)
		}
		e.wantCalls("list Secret")
	}
}

func TestUpgradeWithoutARelease(t *testing.T) {
	e := newEnv(t)
	_, err := e.h.Upgrade(ctx, "app", chartV1(), helm.UpgradeOptions{})
	if !errors.Is(err, helm.ErrNoDeployedReleases) || err.Error() != `"app" has no deployed releases` {
		t.Fatalf("error %v, want no deployed releases", err)
	}
}

// prepareUpgrade: when the last revision is failed or superseded and none is
// deployed, the last one is the current one.
func TestUpgradeFromAFailedReleaseWithNothingDeployed(t *testing.T) {
	e := newEnv(t)
	e.c.fail["create Deployment op"] = errors.New("boom")
	if _, err := e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{}); err == nil || err.Error() != "boom" {
		t.Fatalf("install error %v, want boom", err)
	}
	if s := e.statuses("app"); s != "v1=failed" {
		t.Fatalf("records %s, want v1 failed", s)
	}
	delete(e.c.fail, "create Deployment op")
	e.calls()
	if _, err := e.h.Upgrade(ctx, "app", chartV1(), helm.UpgradeOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret", "list Secret", // Last, then Deployed: none
		"create Secret sh.helm.release.v1.app.v2",
		"get ServiceAccount op", "get ConfigMap op-config", "get Deployment op", "create Deployment op",
		"update Secret sh.helm.release.v1.app.v1", "update Secret sh.helm.release.v1.app.v2",
	)
	if s := e.statuses("app"); s != "v1=superseded v2=deployed" {
		t.Errorf("records %s", s)
	}
}

// releasingUpgrade's error path: the original record is written back
// unchanged and the new one is marked failed; the failed release is returned.
func TestUpgradeFailureMarksTheNewRevisionFailed(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.c.fail["create ConfigMap op-migration"] = errors.New("boom")
	rel, err := e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{})
	if err == nil || err.Error() != "failed to create resource: boom" || rel == nil {
		t.Fatalf("release %v error %v, want the failed release and the create error", rel, err)
	}
	if rel.Info.Description != `Upgrade "app" failed: failed to create resource: boom` {
		t.Errorf("description %q", rel.Info.Description)
	}
	if s := e.statuses("app"); s != "v1=deployed v2=failed" {
		t.Errorf("records %s", s)
	}
}

// Rollback (rollback.go): a new revision pending-rollback with the previous
// manifest, the cluster moved back (objects only in the failed one deleted),
// every deployed revision superseded, the new one deployed.
func TestRollbackRestoresThePreviousManifest(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.upgrade(chartV2())
	if err := e.h.Rollback(ctx, "app", helm.RollbackOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret", "list Secret", "get Secret sh.helm.release.v1.app.v1",
		"create Secret sh.helm.release.v1.app.v3",
		"get ServiceAccount op", "get ConfigMap op-config", "patch ConfigMap op-config", "get Deployment op", "patch Deployment op",
		"get ConfigMap op-migration", "delete ConfigMap op-migration",
		"list Secret", "update Secret sh.helm.release.v1.app.v2",
		"update Secret sh.helm.release.v1.app.v3",
	)
	if s := e.statuses("app"); s != "v1=superseded v2=superseded v3=deployed" {
		t.Errorf("records %s", s)
	}
	last, _ := e.h.Get(ctx, "app")
	if last.Chart.Version != "1.0.0" || last.Info.Description != "Rollback to 1" {
		t.Errorf("last revision %+v %+v, want chart 1.0.0 rolled back to 1", last.Chart, last.Info)
	}
	if _, ok := e.configMap("op-migration"); ok {
		t.Error("op-migration survived the rollback")
	}
}

// Rollback with Wait: it waits for the target's objects to be ready (here:
// present and not deleting) on the injected clock, polling every 2s, and a
// timeout marks the rollback failed with helm's wait error.
func TestRollbackWaitTimesOut(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.upgrade(chartV2())
	var sa corev1.ServiceAccount
	_ = e.c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "op"}, &sa)
	sa.Finalizers = []string{"example.com/hold"}
	if err := e.c.Client.Update(ctx, &sa); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Client.Delete(ctx, &sa); err != nil {
		t.Fatal(err)
	}
	start := e.clock.Now()
	err := e.h.Rollback(ctx, "app", helm.RollbackOptions{Wait: true, Timeout: 30 * time.Second})
	if err == nil || err.Error() != "release app failed: timed out waiting for the condition" || !errors.Is(err, helm.ErrWaitTimeout) {
		t.Fatalf("error %v, want the wait timeout", err)
	}
	if d := e.clock.Since(start); d != 30*time.Second {
		t.Errorf("waited %v, want the 30s timeout", d)
	}
	if n := strings.Count(strings.Join(e.calls(), "\n"), "get ServiceAccount op"); n != 16 {
		t.Errorf("%d reads of the ServiceAccount, want 1 for the update and 15 polls (0s, 2s, ..., 28s)", n)
	}
	if s := e.statuses("app"); s != "v1=superseded v2=deployed v3=failed" {
		t.Errorf("records %s", s)
	}
}

// Uninstall (uninstall.go): the last record uninstalling, the objects deleted
// in uninstall order, then every record purged (a get and a delete each).
func TestUninstallCallSequence(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.upgrade(chartV2())
	if _, err := e.h.Uninstall(ctx, "app", helm.UninstallOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wantCalls(
		"list Secret", "update Secret sh.helm.release.v1.app.v2",
		"delete Deployment op", "delete ConfigMap op-config", "delete ConfigMap op-migration", "delete ServiceAccount op",
		"get Secret sh.helm.release.v1.app.v1", "delete Secret sh.helm.release.v1.app.v1",
		"get Secret sh.helm.release.v1.app.v2", "delete Secret sh.helm.release.v1.app.v2",
	)
	if s := e.statuses("app"); s != "" {
		t.Errorf("records %q left", s)
	}
}

// Uninstall with Wait: WaitForDelete polls until every deleted object is
// NotFound; a finalizer that outlives the timeout gives helm's aggregate error.
func TestUninstallWaitForDeleteTimesOut(t *testing.T) {
	e := newEnv(t)
	c := chartV1()
	c.Objects[1].SetFinalizers([]string{"example.com/hold"})
	e.install(c)
	start := e.clock.Now()
	_, err := e.h.Uninstall(ctx, "app", helm.UninstallOptions{Wait: true, Timeout: 30 * time.Second})
	if err == nil || err.Error() != "uninstallation completed with 1 error(s): timed out waiting for the condition" {
		t.Fatalf("error %v, want the wait timeout", err)
	}
	if d := e.clock.Since(start); d != 30*time.Second {
		t.Errorf("waited %v, want 30s", d)
	}
	if s := e.statuses("app"); s != "" {
		t.Errorf("records %q: a timed-out wait still purges", s)
	}
}

func TestUninstallWithoutARelease(t *testing.T) {
	e := newEnv(t)
	_, err := e.h.Uninstall(ctx, "app", helm.UninstallOptions{})
	if !errors.Is(err, helm.ErrReleaseNotFound) || err.Error() != "uninstall: Release not loaded: app: release: not found" {
		t.Fatalf("error %v", err)
	}
}

// helm-operator-plugins actionClient.Install: a failure after the release was
// recorded uninstalls it and returns the original error.
func TestActionClientUninstallsAFailedInstall(t *testing.T) {
	e := newEnv(t)
	e.c.fail["create Deployment op"] = errors.New("boom")
	ac := helm.NewActionClient(e.h)
	_, err := ac.Install(ctx, "app", chartV1(), helm.InstallOptions{})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("error %v, want the original error", err)
	}
	if s := e.statuses("app"); s != "" {
		t.Errorf("records %q, want the failed release uninstalled", s)
	}
	if _, ok := e.configMap("op-config"); ok {
		t.Error("op-config survived the failure uninstall")
	}
}

// With Wait on the failure uninstall (rukpak #596), a cleanup that outlasts the
// timeout wraps both errors.
func TestActionClientFailureUninstallWaitTimeout(t *testing.T) {
	e := newEnv(t)
	e.c.fail["create Deployment op"] = errors.New("boom")
	c := chartV1()
	c.Objects[1].SetFinalizers([]string{"example.com/hold"})
	ac := helm.NewActionClient(e.h)
	ac.InstallFailureUninstall = helm.UninstallOptions{Wait: true, Timeout: 30 * time.Second}
	_, err := ac.Install(ctx, "app", c, helm.InstallOptions{})
	want := "uninstall failed: uninstallation completed with 1 error(s): timed out waiting for the condition: original install error: boom"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n  %v\nwant:\n  %s", err, want)
	}
}

// actionClient.Upgrade: a failed upgrade is rolled back; with
// WithFailureRollbacks(false) (operator-controller) it stays failed.
func TestActionClientRollsBackAFailedUpgrade(t *testing.T) {
	for _, rollbacks := range []bool{true, false} {
		t.Run(fmt.Sprint("rollbacks=", rollbacks), func(t *testing.T) {
			e := newEnv(t)
			e.install(chartV1())
			e.c.fail["patch Deployment op"] = errors.New("boom")
			ac := helm.NewActionClient(e.h)
			ac.FailureRollbacks = rollbacks
			_, err := ac.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{})
			if err == nil || err.Error() != `cannot patch "op" with kind Deployment: boom` {
				t.Fatalf("error %v", err)
			}
			want := "v1=deployed v2=failed"
			if rollbacks {
				want = "v1=superseded v2=failed v3=deployed"
			}
			if s := e.statuses("app"); s != want {
				t.Errorf("records %s, want %s", s, want)
			}
			if _, ok := e.configMap("op-migration"); ok == rollbacks {
				t.Errorf("op-migration present=%v after rollbacks=%v", ok, rollbacks)
			}
		})
	}
}

// actionClient.History is newest first, and the storage sorts by revision, not
// by the apiserver's key order (v10 lists before v2).
func TestHistoryOrder(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	for i := 0; i < 10; i++ {
		e.upgrade(chartV1())
	}
	rels, err := helm.NewActionClient(e.h).History(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range rels {
		got = append(got, r.Version)
	}
	if !slices.Equal(got, []int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Errorf("history %v, want newest first", got)
	}
}

// actionClient.Reconcile recreates a missing object from the manifest, without
// helm's ownership metadata, and leaves unchanged ones alone.
func TestActionClientReconcile(t *testing.T) {
	e := newEnv(t)
	rel := e.install(chartV1())
	cm, _ := e.configMap("op-config")
	if err := e.c.Client.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := helm.NewActionClient(e.h).Reconcile(ctx, rel); err != nil {
		t.Fatal(err)
	}
	e.wantCalls("get ServiceAccount op", "get ConfigMap op-config", "create ConfigMap op-config", "get Deployment op")
	cm, ok := e.configMap("op-config")
	if !ok || cm.Annotations[helm.ReleaseNameAnnotation] != "" {
		t.Errorf("recreated op-config %v, want it without ownership annotations", cm)
	}
}

// A kind the cluster does not serve fails at build (kube.Client.Build maps
// every object), before anything is recorded or created.
func TestInstallOfAnUnservedKindFailsBeforeRecording(t *testing.T) {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{
		corev1.SchemeGroupVersion.WithKind("ServiceAccount"), corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		corev1.SchemeGroupVersion.WithKind("Secret"), appsv1.SchemeGroupVersion.WithKind("Deployment"),
	} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	rec := &recorder{Client: fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(mapper).Build()}
	h := helm.New(helm.Config{Client: rec, Clock: testingclock.NewFakeClock(epoch), Namespace: ns})
	c := chartV1()
	c.Objects = append(c.Objects, &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	rel, err := h.Install(ctx, "app", c, helm.InstallOptions{})
	want := `unable to build kubernetes objects from release manifest: resource mapping not found for name: "x" namespace: "" from "": ` +
		`no matches for kind "ControllerRevision" in version "apps/v1"` + "\nensure CRDs are installed first"
	if rel != nil || err == nil || err.Error() != want {
		t.Fatalf("release %v error:\n  %v\nwant:\n  %s", rel, err, want)
	}
	if !slices.Equal(rec.calls, []string{"list Secret"}) {
		t.Errorf("calls %v, want only the history list", rec.calls)
	}
}

// Unknown kinds go after every kind of helm's install order.
func TestManifestIsInHelmsInstallOrder(t *testing.T) {
	e := newEnv(t)
	c := chartV1()
	c.Objects = append([]client.Object{&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "x"}}}, c.Objects...)
	rel := e.install(c)
	var kinds []string
	for _, o := range mustObjects(t, rel) {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
	}
	if want := []string{"ServiceAccount", "ConfigMap", "Deployment", "ControllerRevision"}; !slices.Equal(kinds, want) {
		t.Errorf("manifest kinds %v, want %v", kinds, want)
	}
}

func mustObjects(t *testing.T, rel *helm.Release) []client.Object {
	t.Helper()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	objs, err := rel.Objects(scheme)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}
