package patterns_test

// The tests of this file show the Known gaps of the patterns' doc.go files,
// each as it is today: a change that closes a gap breaks its test, and the
// item goes with it. Each replays its pattern's correct operator once, on
// plan seed 1 with no fault (and a scripted step where the gap needs one).

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/patterns/binding"
	"github.com/ctrlsim/ctrlsim/examples/patterns/checksum"
	"github.com/ctrlsim/ctrlsim/examples/patterns/conditions"
	"github.com/ctrlsim/ctrlsim/examples/patterns/dependency"
	"github.com/ctrlsim/ctrlsim/examples/patterns/finalizer"
	"github.com/ctrlsim/ctrlsim/examples/patterns/generatename"
	"github.com/ctrlsim/ctrlsim/examples/patterns/guard"
	"github.com/ctrlsim/ctrlsim/examples/patterns/jobchild"
	"github.com/ctrlsim/ctrlsim/examples/patterns/mapports"
	"github.com/ctrlsim/ctrlsim/examples/patterns/membervolume"
	"github.com/ctrlsim/ctrlsim/examples/patterns/ownedchildren"
	"github.com/ctrlsim/ctrlsim/examples/patterns/password"
	"github.com/ctrlsim/ctrlsim/examples/patterns/probe"
	"github.com/ctrlsim/ctrlsim/examples/patterns/registry"
	"github.com/ctrlsim/ctrlsim/examples/patterns/restartchecksum"
	"github.com/ctrlsim/ctrlsim/examples/patterns/restartstamp"
	"github.com/ctrlsim/ctrlsim/examples/patterns/schedule"
	"github.com/ctrlsim/ctrlsim/examples/patterns/secretref"
	"github.com/ctrlsim/ctrlsim/examples/patterns/statefulset"
	"github.com/ctrlsim/ctrlsim/examples/patterns/tenant"
	"github.com/ctrlsim/ctrlsim/examples/patterns/twomanagers"
	"github.com/ctrlsim/ctrlsim/operatortest"
	simexplore "github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// replayCorrect replays the correct operator of the pattern named name on
// plan seed 1 with no fault and no drawn step, the script its only steps,
// and fails the test if the run violates anything.
func replayCorrect(t *testing.T, name string, script ...operatortest.Step) *operatortest.Replayed {
	t.Helper()
	r := replayScript(t, name, script...)
	if v := r.Violated(); len(v) > 0 {
		t.Fatalf("the run of %s violates %v", name, v)
	}
	return r
}

// replayScript is replayCorrect's run, judged but whatever its verdicts.
func replayScript(t *testing.T, name string, script ...operatortest.Step) *operatortest.Replayed {
	t.Helper()
	i := slices.IndexFunc(patterns, func(p pattern) bool { return p.name == name })
	if i < 0 {
		t.Fatalf("no pattern %s", name)
	}
	o := patterns[i].options(false)
	o.Workload.Script = script
	return faultfree.Replay(t, o)
}

// get reads key's object of the run's final state into obj.
func get(t *testing.T, r *operatortest.Replayed, ns, name string, obj client.Object) {
	t.Helper()
	if err := r.Final.Get(client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		t.Fatal(err)
	}
}

// none fails the test unless the final state has no object of list's kind
// in namespace ns ("" for every namespace, or a cluster-scoped kind); a
// kind the apiserver model does not serve has none.
func none(t *testing.T, r *operatortest.Replayed, list client.ObjectList, ns string) {
	t.Helper()
	var opts []client.ListOption
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := r.Final.List(list, opts...); err != nil {
		if apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return
		}
		t.Fatal(err)
	}
	if n := apimeta.LenList(list); n > 0 {
		t.Errorf("%T in %q holds %d objects, want none", list, ns, n)
	}
}

// fields are the names of the fields of v's struct type.
func fields(v any) []string {
	ty := reflect.TypeOf(v)
	var out []string
	for i := range ty.NumField() {
		out = append(out, ty.Field(i).Name)
	}
	return out
}

// operatorSteps are the run's steps of the processes named.
func operatorSteps(r *operatortest.Replayed, processes ...string) []trace.Step {
	var out []trace.Step
	for _, s := range r.Steps {
		if slices.Contains(processes, s.Process) {
			out = append(out, s)
		}
	}
	return out
}

func TestCompleteBindingsSecretHoldsNoPasswordAndNoServiceIsMade(t *testing.T) {
	r := replayCorrect(t, "complete-binding")
	var s corev1.Secret
	get(t, r, "data", "carts-binding", &s)
	var keys []string
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if strings.Join(keys, ",") != "host,port,type" {
		t.Errorf("the binding Secret holds %v, want host, port and type (no password)", keys)
	}
	none(t, r, &corev1.ServiceList{}, "data")
	var st binding.Store
	get(t, r, "data", "carts", &st)
	if st.Status.Binding == nil {
		t.Errorf("the Store records no binding: the run is not the one the gap is about")
	}
}

func TestConfigChecksumCoversOnlyTheOperatorsOwnConfigMap(t *testing.T) {
	if got := fields(checksum.WebAppSpec{}); !slices.Equal(got, []string{"Config", "Replicas"}) {
		t.Errorf("WebAppSpec has fields %v: none names a ConfigMap of the user's", got)
	}
	r := replayCorrect(t, "config-checksum")
	var app checksum.WebApp
	get(t, r, "web", "shop", &app)
	var cm corev1.ConfigMap
	get(t, r, "web", "shop-config", &cm)
	if !metav1.IsControlledBy(&cm, &app) {
		t.Errorf("the checksummed ConfigMap is not the WebApp's own: owners %v", cm.OwnerReferences)
	}
}

func TestInvalidClusterIPsServiceSelectsNoPodAndNoEndpointSliceIsRead(t *testing.T) {
	r := replayCorrect(t, "invalid-clusterip")
	var svc corev1.Service
	get(t, r, "queue", "amqp", &svc)
	if len(svc.Spec.Selector) == 0 {
		t.Fatalf("the Service selects nothing")
	}
	none(t, r, &corev1.PodList{}, "queue")
	for _, s := range operatorSteps(r, "clusterip") {
		if strings.HasPrefix(s.Object, "EndpointSlice ") || strings.HasPrefix(s.Object, "Endpoints ") {
			t.Errorf("the operator reads endpoints: %s", s)
		}
	}
}

func TestConditionsPageReportsOnlyReady(t *testing.T) {
	r := replayCorrect(t, "conditions")
	var page conditions.Page
	get(t, r, "site", "home", &page)
	var types []string
	for _, c := range page.Status.Conditions {
		types = append(types, c.Type)
	}
	if !slices.Equal(types, []string{conditions.Ready}) {
		t.Errorf("the Page's conditions are %v, want Ready alone", types)
	}
}

func TestDependencyKeepsTheLastUserWhileTheSecretIsMissing(t *testing.T) {
	// The Secret is deleted for good: the operator fails at rest, as it
	// should (no-error-at-rest says so), and the ConfigMap stays.
	r := replayScript(t, "dependency", operatortest.Delete(10*time.Second, &corev1.Secret{ObjectMeta: meta("data", "orders-user")}))
	var db dependency.Database
	get(t, r, "data", "orders", &db)
	if db.Status.Ready {
		t.Errorf("the Database is ready without its Secret: %+v", db.Status)
	}
	var cm corev1.ConfigMap
	get(t, r, "data", "orders-connection", &cm)
	if cm.Data["user"] != "orders" {
		t.Errorf("the connection ConfigMap's user is %q, want the last one seen, orders", cm.Data["user"])
	}
}

func TestFinalizersProviderIsAConfigMapInTheCluster(t *testing.T) {
	r := replayCorrect(t, "finalizer")
	var cm corev1.ConfigMap
	get(t, r, "store", finalizer.Prefix+"assets", &cm)
	if cm.Labels[finalizer.ProviderLabel] != "cloud" || cm.Data["region"] != "eu-west-1" {
		t.Errorf("the provider's registration is %v %v", cm.Labels, cm.Data)
	}
}

func TestGenerateNameRecreatesADeletedChildUnderANewName(t *testing.T) {
	r := replayCorrect(t, "generate-name")
	var snap generatename.Snapshot
	get(t, r, "work", "nightly", &snap)
	first := snap.Status.ConfigMapName
	if first == "" {
		t.Fatal("the Snapshot records no child")
	}
	r = replayCorrect(t, "generate-name", operatortest.Delete(10*time.Second, &corev1.ConfigMap{ObjectMeta: meta("work", first)}))
	get(t, r, "work", "nightly", &snap)
	if snap.Status.ConfigMapName == first || !strings.HasPrefix(snap.Status.ConfigMapName, "nightly-") {
		t.Errorf("after %s was deleted the Snapshot records %q, want a new generated name", first, snap.Status.ConfigMapName)
	}
	var cm corev1.ConfigMap
	get(t, r, "work", snap.Status.ConfigMapName, &cm)
}

func TestJobChildsTaskSpecIsImmutable(t *testing.T) {
	task := &jobchild.Task{ObjectMeta: meta("work", "report")}
	r := replayCorrect(t, "job-child", operatortest.Patch(20*time.Second, task, `{"spec":{"image":"busybox:1.37"}}`))
	get(t, r, "work", "report", task)
	if task.Spec.Image != "busybox:1.36" {
		t.Errorf("the Task's image became %q: its spec was changed", task.Spec.Image)
	}
	var jobs batchv1.JobList
	if err := r.Final.List(&jobs, client.InNamespace("work")); err != nil {
		t.Fatal(err)
	}
	if len(jobs.Items) != 1 || jobs.Items[0].Spec.Template.Spec.Containers[0].Image != "busybox:1.36" {
		t.Errorf("the Task's Jobs: %d, want one of busybox:1.36", len(jobs.Items))
	}
	if !strings.Contains(strings.Join(r.Timeline, "\n"), "spec is immutable") {
		t.Errorf("the timeline does not show the patch refused by the CRD's rule:\n%s", strings.Join(r.Timeline, "\n"))
	}
}

func TestLeaderElectionsCertificateIsTheDNSNameNotIssued(t *testing.T) {
	r := replayCorrect(t, "leader-election")
	var secrets corev1.SecretList
	if err := r.Final.List(&secrets, client.InNamespace("tls")); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 1 {
		t.Fatalf("%d Secrets, want the Certificate's one", len(secrets.Items))
	}
	want := "-----BEGIN CERTIFICATE-----\nshop.example.com\n-----END CERTIFICATE-----\n"
	if got := string(secrets.Items[0].Data["tls.crt"]); got != want {
		t.Errorf("tls.crt is %q, want the DNS name between the PEM lines", got)
	}
}

func TestMapPortsServicePortsAreTCPOnly(t *testing.T) {
	if ty := reflect.TypeOf(mapports.FrontendSpec{}.Ports); ty.Elem().Kind() != reflect.Int32 {
		t.Errorf("a Frontend's port is a %v, no longer a bare number", ty.Elem())
	}
	r := replayCorrect(t, "map-ports")
	var svc corev1.Service
	get(t, r, "web", "front", &svc)
	if len(svc.Spec.Ports) != 3 {
		t.Fatalf("the Service has %d ports, want 3", len(svc.Spec.Ports))
	}
	for _, p := range svc.Spec.Ports {
		if p.Protocol != corev1.ProtocolTCP {
			t.Errorf("port %s is %s", p.Name, p.Protocol)
		}
	}
}

func TestMemberVolumeHasNoPersistentVolumeNoStorageClassNoDisruptionBudget(t *testing.T) {
	r := replayCorrect(t, "member-volume")
	var claims corev1.PersistentVolumeClaimList
	if err := r.Final.List(&claims, client.InNamespace("store")); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) == 0 {
		t.Fatal("no claim: the run is not the one the gap is about")
	}
	for _, c := range claims.Items {
		if c.Status.Phase == corev1.ClaimBound || c.Spec.VolumeName != "" {
			t.Errorf("claim %s is bound (%s, volume %q)", c.Name, c.Status.Phase, c.Spec.VolumeName)
		}
	}
	var pods corev1.PodList
	if err := r.Final.List(&pods, client.InNamespace("store")); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Errorf("%d pods run on unbound claims, want 3", len(pods.Items))
	}
	none(t, r, &corev1.PersistentVolumeList{}, "")
	none(t, r, &storagev1.StorageClassList{}, "")
	none(t, r, &policyv1.PodDisruptionBudgetList{}, "store")
	if got := fields(membervolume.DBClusterSpec{}); slices.ContainsFunc(got, func(f string) bool { return strings.Contains(f, "Budget") }) {
		t.Errorf("DBClusterSpec has fields %v", got)
	}
}

func TestInvalidOverrideMakesNoService(t *testing.T) {
	r := replayCorrect(t, "invalid-override")
	none(t, r, &corev1.ServiceList{}, "flow")
	for _, s := range operatorSteps(r, "override") {
		if faultfree.IsWrite(s.Op) && !strings.HasPrefix(s.Object, "StatefulSet ") && !strings.HasPrefix(s.Object, "Stream ") {
			t.Errorf("the operator writes more than its StatefulSet and status: %s", s)
		}
	}
}

func TestOwnedChildrensWebsiteHasNoStatus(t *testing.T) {
	if _, ok := reflect.TypeOf(ownedchildren.Website{}).FieldByName("Status"); ok {
		t.Fatal("a Website has a Status")
	}
	r := replayCorrect(t, "owned-children")
	for _, s := range operatorSteps(r, "ownedchildren") {
		if strings.HasSuffix(s.Op, "/status") {
			t.Errorf("the operator writes a status: %s", s)
		}
	}
}

func TestPasswordIsWrittenOnlyWhenItsSecretIsCreated(t *testing.T) {
	if got := fields(password.UserSpec{}); !slices.Equal(got, []string{"Username"}) {
		t.Errorf("UserSpec has fields %v: a rotation would need one", got)
	}
	r := replayCorrect(t, "password", operatortest.Delete(20*time.Second, &corev1.Secret{ObjectMeta: meta("db", "app-credentials")}))
	var writes []string
	for _, s := range operatorSteps(r, "password") {
		if faultfree.IsWrite(s.Op) && s.Object == "Secret db/app-credentials" && s.Result == "ok" {
			writes = append(writes, s.Op)
		}
	}
	if !slices.Equal(writes, []string{"create", "create"}) {
		t.Errorf("the operator's writes of the Secret, deleted once: %v; want a create before and after, nothing else", writes)
	}
}

func TestProbeReportsOnlyReadyAndReadsTheConfigMapFromTheCache(t *testing.T) {
	r := replayCorrect(t, "probe-heartbeat")
	var p probe.Probe
	get(t, r, "checks", "settings", &p)
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != probe.Ready {
		t.Errorf("the Probe's conditions are %v, want Ready alone", p.Status.Conditions)
	}
	reads := 0
	for _, s := range operatorSteps(r, "probe") {
		if s.Object == "ConfigMap checks/settings" {
			if s.Op != "cached-get" {
				t.Errorf("the probe reads the ConfigMap past the cache: %s", s)
			}
			reads++
		}
	}
	if reads < 2 {
		t.Errorf("the probe read the ConfigMap %d times, want one per poll", reads)
	}
}

func TestRestartChecksumRollsThroughTheChecksumAndReportsNoReadiness(t *testing.T) {
	if _, ok := reflect.TypeOf(restartchecksum.Relay{}).FieldByName("Status"); ok {
		t.Fatal("a Relay has a Status")
	}
	r := replayCorrect(t, "restart-checksum")
	var cm corev1.ConfigMap
	get(t, r, "queue", "relay-config", &cm)
	b, err := json.Marshal(cm.Data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	var d appsv1.Deployment
	get(t, r, "queue", "relay", &d)
	if got := d.Spec.Template.Annotations[restartchecksum.ChecksumAnnotation]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("the pod template's checksum is %q, want the ConfigMap's", got)
	}
}

func TestRestartStampsStatefulSetNamesAMissingServiceAndHasNoClaims(t *testing.T) {
	if got := fields(restartstamp.BrokerStatus{}); !slices.Equal(got, []string{"AppliedConfig"}) {
		t.Errorf("BrokerStatus has fields %v, want AppliedConfig alone (no readiness)", got)
	}
	r := replayCorrect(t, "restart-stamp")
	var sts appsv1.StatefulSet
	get(t, r, "queue", "events", &sts)
	if sts.Spec.ServiceName != "events" || len(sts.Spec.VolumeClaimTemplates) != 0 {
		t.Errorf("the StatefulSet names Service %q and has %d claim templates", sts.Spec.ServiceName, len(sts.Spec.VolumeClaimTemplates))
	}
	none(t, r, &corev1.ServiceList{}, "queue")
}

func TestScheduleHasNoConcurrencyPolicy(t *testing.T) {
	for _, f := range fields(schedule.ScheduleSpec{}) {
		if strings.Contains(f, "Concurrency") {
			t.Errorf("ScheduleSpec has %s", f)
		}
	}
	if strings.Contains(strings.ToLower(string(schedule.CRD)), "concurrency") {
		t.Error("the Schedule CRD has a concurrency field")
	}
}

func TestStatefulSetCacheHasNoClaimsNoUpdateStrategyNoDisruptionBudget(t *testing.T) {
	if got := fields(statefulset.CacheSpec{}); !slices.Equal(got, []string{"Replicas", "Version"}) {
		t.Errorf("CacheSpec has fields %v, want Replicas and Version (no update strategy)", got)
	}
	r := replayCorrect(t, "statefulset")
	var sts appsv1.StatefulSet
	get(t, r, "data", "sessions", &sts)
	if len(sts.Spec.VolumeClaimTemplates) != 0 {
		t.Errorf("the StatefulSet has %d claim templates", len(sts.Spec.VolumeClaimTemplates))
	}
	if u := sts.Spec.UpdateStrategy; u.Type != "" && u.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		t.Errorf("the StatefulSet's update strategy is %s, not the default", u.Type)
	}
	none(t, r, &policyv1.PodDisruptionBudgetList{}, "data")
}

func TestTenantAdminIsBoundToAClusterRoleTheModelDoesNotHold(t *testing.T) {
	r := replayCorrect(t, "tenant-namespace")
	var rb rbacv1.RoleBinding
	get(t, r, tenant.Prefix+"team-a", tenant.AdminName, &rb)
	if rb.RoleRef.Kind != "ClusterRole" || rb.RoleRef.Name != "admin" {
		t.Fatalf("the admin is bound to %s %s", rb.RoleRef.Kind, rb.RoleRef.Name)
	}
	err := r.Final.Get(client.ObjectKey{Name: "admin"}, &rbacv1.ClusterRole{})
	if !apierrors.IsNotFound(err) && !apimeta.IsNoMatchError(err) {
		t.Errorf("reading ClusterRole admin: %v; want NotFound, the model holds none", err)
	}
}

func TestTwoManagersWriteOnlyStatus(t *testing.T) {
	r := replayCorrect(t, "two-managers")
	n := 0
	for _, s := range operatorSteps(r, "dns", "tls") {
		if faultfree.IsWrite(s.Op) {
			n++
			if s.Op != "patch/status" {
				t.Errorf("a manager writes more than status: %s", s)
			}
		}
	}
	var gw twomanagers.Gateway
	get(t, r, "edge", "shop", &gw)
	if n == 0 || gw.Status.Address == "" || gw.Status.Certificate == "" {
		t.Errorf("%d writes, status %+v: the run is not the one the gap is about", n, gw.Status)
	}
}

// The tests below show the Known gaps of the suite's own doc.go.

func TestEachOperatorIsOnePatternAtItsSmallest(t *testing.T) {
	for _, p := range patterns {
		for _, buggy := range []bool{false, true} {
			if o := p.options(buggy); len(o.CRDs) != 1 || len(o.CRDFiles) != 0 {
				t.Errorf("%s (buggy %v) serves %d CRDs and %d CRD files, want its pattern's one", p.name, buggy, len(o.CRDs), len(o.CRDFiles))
			}
		}
	}
}

func TestTwinsAreJudgedByTheGenericOraclesAlone(t *testing.T) {
	for _, p := range patterns {
		for _, buggy := range []bool{false, true} {
			if o := p.options(buggy); len(o.Properties) != 0 {
				t.Errorf("%s (buggy %v) has %d properties of its domain, want none", p.name, buggy, len(o.Properties))
			}
		}
	}
}

func TestAPatternWithTwoTwinsIsListedOncePerTwin(t *testing.T) {
	var names []string
	for _, p := range patterns {
		names = append(names, p.name)
	}
	for _, twice := range [][2]string{{"probe-heartbeat", "probe-flip"}, {"finalizer", "finalizer-past"}, {"two-managers", "two-managers-past"}} {
		i, j := slices.Index(names, twice[0]), slices.Index(names, twice[1])
		if i < 0 || j < 0 || !bytes.Equal(patterns[i].options(false).CRDs[0], patterns[j].options(false).CRDs[0]) {
			t.Errorf("%v: want both listed, one correct operator explored under each name", twice)
		}
	}
}

func TestALargeOperatorsTrapsStandOnePerPattern(t *testing.T) {
	traps := []string{"restart-stamp", "invalid-override", "complete-binding", "restart-checksum", "invalid-clusterip", "override-guard", "secret-ref", "key-pair"}
	var crds [][]byte
	for _, name := range traps {
		i := slices.IndexFunc(patterns, func(p pattern) bool { return p.name == name })
		if i < 0 {
			t.Fatalf("no pattern %s", name)
		}
		o := patterns[i].options(false)
		if len(o.Managers) != 1 || slices.ContainsFunc(crds, func(c []byte) bool { return bytes.Equal(c, o.CRDs[0]) }) {
			t.Errorf("%s: %d managers, or a CRD another trap's operator serves; want one operator per trap", name, len(o.Managers))
		}
		crds = append(crds, o.CRDs[0])
	}
}

func TestADeletedTenantTakesItsNamespaceAndEveryKindInIt(t *testing.T) {
	team := &tenant.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	ns := tenant.Prefix + "team-a"
	r := replayCorrect(t, "tenant-namespace")
	var namespace corev1.Namespace
	get(t, r, "", ns, &namespace)
	if ref := metav1.GetControllerOf(&namespace); ref == nil || ref.Kind != "Tenant" || ref.Name != "team-a" {
		t.Errorf("the Namespace's controller is %+v, want the cluster-scoped Tenant", ref)
	}
	r = replayCorrect(t, "tenant-namespace", operatortest.Delete(20*time.Second, team))
	if err := r.Final.Get(client.ObjectKey{Name: ns}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted Tenant's Namespace: %v, want NotFound", err)
	}
	if err := r.Final.Get(client.ObjectKey{Name: "team-a"}, &tenant.Tenant{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted Tenant: %v, want NotFound", err)
	}
	none(t, r, &rbacv1.RoleBindingList{}, ns)
	none(t, r, &corev1.ResourceQuotaList{}, ns)
	none(t, r, &networkingv1.NetworkPolicyList{}, ns)
}

func TestAnExplorationReportsOnlyItsFirstViolation(t *testing.T) {
	for _, p := range patterns {
		if p.options(false).KeepGoing {
			t.Errorf("%s's correct operator is explored past its first violation", p.name)
		}
	}
	// Without KeepGoing an exploration stops at its first violating plan:
	// a false alarm in every plan is counted once.
	res := simexplore.Run(plan.Generator(plan.Space{Processes: []string{"op"}, Horizon: time.Minute}), 10, 1,
		func(*plan.Plan) error { return errors.New("a false alarm in every plan") })
	if !res.Caught || res.Checks != 1 || res.ChecksToFirstFailure != 1 {
		t.Errorf("caught %v after %d plans (first failure at %d), want caught at the first and stopped", res.Caught, res.Checks, res.ChecksToFirstFailure)
	}
}

func TestTheSuiteRunsSequentiallyForItsGlobalPlanFlag(t *testing.T) {
	if flag.Lookup("ctrlsim.plan") == nil {
		t.Fatal("no -ctrlsim.plan flag: the twins' minimal plans are replayed otherwise")
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(src, []byte("t.Parallel"+"()")) {
			t.Errorf("%s runs a test in parallel", name)
		}
	}
}

func TestAGuardedPipelineKeepsItsStatefulSet(t *testing.T) {
	etl := &guard.Pipeline{ObjectMeta: meta("flow", "etl")}
	r := replayCorrect(t, "override-guard", operatortest.Patch(10*time.Second, etl, `{"spec":{"replicas":1,"override":{"serviceName":"etl-workers"}}}`))
	var sts appsv1.StatefulSet
	get(t, r, "flow", "etl", &sts)
	if *sts.Spec.Replicas != 2 || sts.Spec.ServiceName == "etl-workers" {
		t.Errorf("the guarded StatefulSet has %d replicas and service %q, want 2 and the override not applied", *sts.Spec.Replicas, sts.Spec.ServiceName)
	}
	get(t, r, "flow", "etl", etl)
	if etl.Status.Blocked == "" {
		t.Errorf("the Pipeline's status does not say why it was not scaled down")
	}
}

func TestARegistrysStatusWaitsForItsConfigMap(t *testing.T) {
	hub := &secretref.Registry{ObjectMeta: meta("images", "hub")}
	r := replayCorrect(t, "secret-ref",
		operatortest.Patch(10*time.Second, hub, `{"spec":{"secretRef":{"name":"hub-new"}}}`),
		operatortest.Create(20*time.Second, &corev1.Secret{ObjectMeta: meta("images", "hub-new")}))
	var woken bool
	for _, s := range operatorSteps(r, "secretref") {
		woken = woken || s.Controller == "registry-status" && s.Op == "reconcile" && s.At > 10*time.Second
	}
	if woken {
		t.Errorf("registry-status was reconciled after the reference changed, with no ConfigMap change")
	}
}

func TestAKeyPairsCertificateIsSelfSigned(t *testing.T) {
	r := replayCorrect(t, "key-pair")
	var secret corev1.Secret
	get(t, r, "certs", "web-tls", &secret)
	block, _ := pem.Decode(secret.Data[corev1.TLSCertKey])
	if block == nil {
		t.Fatalf("the Secret holds no certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Issuer.CommonName != "web.example.com" || cert.Subject.CommonName != cert.Issuer.CommonName {
		t.Errorf("the certificate is issued by %q to %q, want self-signed for web.example.com", cert.Issuer.CommonName, cert.Subject.CommonName)
	}
	if cert.NotBefore.Year() < 2000 || cert.NotAfter.Sub(cert.NotBefore) != 90*24*time.Hour {
		t.Errorf("the certificate is valid from %v to %v, want 90 days from the operator's clock", cert.NotBefore, cert.NotAfter)
	}
}

func TestRegistryEntryIsAConfigMapWithTheImageAlone(t *testing.T) {
	r := replayCorrect(t, "registry-entry")
	var entry corev1.ConfigMap
	get(t, r, registry.RegistryNamespace, "shop.web", &entry)
	if len(entry.Data) != 1 || entry.Data["image"] != "shop:1" || len(entry.OwnerReferences) != 0 {
		t.Errorf("the entry holds %v, owners %v; want the image alone, no owner", entry.Data, entry.OwnerReferences)
	}
	none(t, r, &corev1.ServiceList{}, registry.RegistryNamespace)
}

func TestDriftOnlyLooksAtTheServicesSpec(t *testing.T) {
	// The user relabels the Service: its spec is as desired, so no drift is
	// seen and the label stays the user's; a target port changed in its spec
	// is drift, and corrected. (A changed port is not: the apply keeps the
	// user's port beside the Site's, both named http, and kube-apiserver
	// refuses the Service at every reconcile; an operator that applies a
	// list keyed by port meets this on a real cluster too.)
	r := replayScript(t, "dry-run-drift",
		operatortest.Patch(10*time.Second, &corev1.Service{ObjectMeta: meta("web", "shop-web")}, `{"metadata":{"labels":{"app":"other"}}}`))
	var svc corev1.Service
	get(t, r, "web", "shop-web", &svc)
	if svc.Labels["app"] != "other" {
		t.Errorf("the relabelled Service's app label is %q, want the user's, other (only the spec is looked at)", svc.Labels["app"])
	}
	r = replayScript(t, "dry-run-drift",
		operatortest.Patch(10*time.Second, &corev1.Service{ObjectMeta: meta("web", "shop-web")}, `{"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":9090}]}}`))
	get(t, r, "web", "shop-web", &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.IntValue() != 8080 {
		t.Errorf("the Service's ports after the user's edit are %+v, want the Site's target port 8080 back", svc.Spec.Ports)
	}
	r = replayScript(t, "dry-run-drift",
		operatortest.Patch(10*time.Second, &corev1.Service{ObjectMeta: meta("web", "shop-web")}, `{"spec":{"ports":[{"name":"http","port":81,"protocol":"TCP","targetPort":8080}]}}`))
	get(t, r, "web", "shop-web", &svc)
	refused := slices.ContainsFunc(r.Steps, func(s trace.Step) bool {
		return s.Op == "dry-run patch" && strings.Contains(s.Result, `spec.ports[1].name: Duplicate value: "http"`)
	})
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 81 || !refused {
		t.Errorf("after the user's change of the port the Service's ports are %+v (the dry run refused for two ports named http: %v), want the user's 81 and the refusal", svc.Spec.Ports, refused)
	}
}
