package apiserver_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

func TestALeaseIsValidatedForItsMetadataOnly(t *testing.T) {
	w := newWorld(t)
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "l"},
		Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](-5)}} // kube-apiserver: must be greater than 0
	w.must(w.s.Create(admin, l))
	bad := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "Not_A_Name"}}
	if err := w.s.Create(admin, bad); !apierrors.IsInvalid(err) {
		t.Errorf("a Lease with an invalid name: %v, want its metadata refused", err)
	}
}

func TestAPodGetsNoPriorityAndNoDefaultTolerations(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", nil)
	if p.Spec.Priority != nil || p.Spec.PreemptionPolicy != nil || len(p.Spec.Tolerations) != 0 {
		t.Fatalf("pod priority %v, preemption %v, tolerations %v; want none of them set",
			p.Spec.Priority, p.Spec.PreemptionPolicy, p.Spec.Tolerations)
	}
}

func TestAnUpdateBindsAPodWithoutABindingAndNoPodScheduledCondition(t *testing.T) {
	w := newWorld(t)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	w.must(w.s.Create(admin, p))
	p.Spec.NodeName = "node-1"
	if err := w.s.Update(admin, p, ""); err != nil {
		t.Fatalf("an update setting spec.nodeName: %v, want it accepted (kube-apiserver refuses it)", err)
	}
	got := w.pod("web")
	if got.Spec.NodeName != "node-1" || len(got.Status.Conditions) != 0 {
		t.Fatalf("nodeName %q, conditions %v; want node-1 and no PodScheduled", got.Spec.NodeName, got.Status.Conditions)
	}
}

func TestAStoredTimeKeepsTheLocationTheClientGaveIt(t *testing.T) {
	w := newWorld(t)
	zone := time.FixedZone("UTC+5", 5*3600)
	at := metav1.NewMicroTime(clock.Epoch.In(zone))
	w.must(w.s.Create(admin, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "l"},
		Spec: coordinationv1.LeaseSpec{AcquireTime: &at}}))
	var got coordinationv1.Lease
	w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: "l"}, &got))
	if got.Spec.AcquireTime.Location() != zone || !got.Spec.AcquireTime.Equal(&at) {
		t.Fatalf("acquireTime %v in %v, want %v in the client's %v", got.Spec.AcquireTime, got.Spec.AcquireTime.Location(), at, zone)
	}
}

func TestAnEmptyMapStaysEmptyNotAbsent(t *testing.T) {
	w := newWorld(t)
	w.must(w.s.Create(admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Data: map[string]string{}}))
	var got corev1.ConfigMap
	w.must(w.s.Get(admin, client.ObjectKey{Namespace: "ns", Name: "c"}, &got))
	if got.Data == nil {
		t.Fatal("data came back absent, as a real server returns it; want it empty")
	}
}

func TestAFieldPrunedFromAnUnstructuredWriteGivesNoWarning(t *testing.T) {
	s := crdOnlyServer(t)
	u := uWidget("w", map[string]any{"size": int64(1), "unknown": "x"})
	if err := s.Create(admin, u); err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Object["spec"].(map[string]any)["unknown"]; ok {
		t.Fatalf("spec.unknown was stored: %v", u.Object["spec"])
	}
	if ws := s.TakeWarnings(); len(ws) != 0 {
		t.Fatalf("warnings %q, want none (kube-apiserver warns of the unknown field)", ws)
	}
}

func TestAPodOfANodeNoKubeletServesStaysTerminating(t *testing.T) {
	w := newWorld(t)
	p := w.scheduledPod("web", ptr.To[int64](30))
	w.must(w.s.Delete(admin, p, nil))
	w.clock.Step(24 * time.Hour)
	if got := w.pod("web"); got.DeletionTimestamp == nil {
		t.Fatal("the pod is not Terminating")
	}
}

func TestCRDsGivenInOptionsAreNoCustomResourceDefinitionObjects(t *testing.T) {
	sc := apiservertest.Scheme()
	if err := apiextensionsv1.AddToScheme(sc); err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: sc, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	if _, ok := s.KindFor(apiservertest.WidgetGVK); !ok {
		t.Fatal("Widget is not served")
	}
	var crds apiextensionsv1.CustomResourceDefinitionList
	if err := s.List(admin, &crds, &client.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(crds.Items) != 0 {
		t.Fatalf("%d CustomResourceDefinitions listed, want none", len(crds.Items))
	}
}

func TestAnApplyInCBORIsRefused(t *testing.T) {
	w := newWorld(t)
	obj := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	err := w.s.PatchWith(admin, obj, types.ApplyCBORPatchType, []byte{0xa0}, "", apiserver.WriteOptions{FieldManager: "m"})
	if apierrors.ReasonForError(err) != metav1.StatusReasonUnsupportedMediaType {
		t.Fatalf("an apply in CBOR: %v, want 415", err)
	}
	if code := err.(apierrors.APIStatus).Status().Code; code != http.StatusUnsupportedMediaType {
		t.Fatalf("code %d, want 415", code)
	}
}

func TestAWriteHasNoFieldValidationAndScaleIsNotServed(t *testing.T) {
	var names []string
	typ := reflect.TypeFor[apiserver.WriteOptions]()
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name)
	}
	if !reflect.DeepEqual(names, []string{"FieldManager", "Force", "DryRun"}) {
		t.Errorf("WriteOptions has %v, want FieldManager, Force and DryRun alone", names)
	}
	w := newWorld(t)
	c := cm("c")
	w.must(w.s.Create(admin, c))
	if err := w.s.Update(admin, c, "scale"); !apierrors.IsNotFound(err) {
		t.Errorf("an update of configmaps/scale: %v, want a 404", err)
	}
}

func TestTheWatcherListsWithoutAuthorization(t *testing.T) {
	w := newWorld(t)
	w.must(w.s.Create(admin, cm("c")))
	nobody := apiserver.ServiceAccount("ns", "nobody")
	if err := w.s.List(nobody, &corev1.ConfigMapList{}, &client.ListOptions{Namespace: "ns"}); !apierrors.IsForbidden(err) {
		t.Fatalf("a list by a ServiceAccount without roles: %v, want forbidden", err)
	}
	objs, _ := w.s.Watcher().List(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if len(objs) == 0 {
		t.Fatal("the Watcher lists no ConfigMap")
	}
	if n := reflect.TypeOf(w.s.Watcher().List).NumIn(); n != 1 {
		t.Fatalf("Watcher.List takes %d arguments, want the kind alone (no user)", n)
	}
}

func TestAResourceQuotaLimitsNothing(t *testing.T) {
	w := newWorld(t)
	w.must(w.s.Create(admin, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "none"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceConfigMaps: resource.MustParse("0")}}}))
	if err := w.s.Create(admin, cm("c")); err != nil {
		t.Fatalf("a ConfigMap beyond a quota of none: %v, want it created (no quota admission)", err)
	}
}

func TestABareCRDServesItsOneVersion(t *testing.T) {
	w := newWorld(t) // Widget installed as a bare CRD: its GVK, no Definition
	v2 := apiservertest.WidgetGVK
	v2.Version = "v2"
	if _, ok := w.s.KindFor(apiservertest.WidgetGVK); !ok {
		t.Fatal("Widget v1 is not served")
	}
	if _, ok := w.s.KindFor(v2); ok {
		t.Fatal("Widget v2 is served by a bare CRD of v1")
	}
}

// seenColors is a webhook admission that records the color each mutated
// Widget had when its mutating webhook saw it.
type seenColors struct{ colors []string }

func (s *seenColors) Mutate(_ apiserver.AdmissionAttributes, obj client.Object) (client.Object, error) {
	if w, ok := obj.(*apiservertest.Widget); ok {
		s.colors = append(s.colors, w.Spec.Color)
	}
	return obj, nil
}

func (s *seenColors) Validate(apiserver.AdmissionAttributes, client.Object) error { return nil }

func TestAMutatingWebhookSeesACustomResourceBeforeItsSchemasDefaults(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	seen := &seenColors{}
	s.SetWebhookAdmission(seen)
	wd := schemaWidget("w", apiservertest.WidgetSpec{Size: 1})
	if err := s.Create(admin, wd); err != nil {
		t.Fatal(err)
	}
	if wd.Spec.Color == "" || len(seen.colors) != 1 || seen.colors[0] != "" {
		t.Fatalf("stored color %q, the webhook saw %q; want a defaulted color stored and none seen", wd.Spec.Color, seen.colors)
	}
}

// TestARoleThatGrantsMoreThanItsWriterHasIsWritten shows sim/rbac's gap: no
// escalation prevention (kube-apiserver's Role registry refuses "attempt to
// grant extra privileges" to a writer that lacks them, or the escalate verb).
func TestARoleThatGrantsMoreThanItsWriterHasIsWritten(t *testing.T) {
	w := newWorld(t)
	sa := apiserver.ServiceAccount("ns", "ctrl")
	w.must(w.s.Create(admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "writer"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles"}, Verbs: []string{"create"}}}}))
	w.must(w.s.Create(admin, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "writer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "writer"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ctrl", Namespace: "ns"}}}))
	all := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "all"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
	if err := w.s.Create(sa, all); err != nil {
		t.Fatalf("a Role granting everything, written by a user who may only create Roles: %v, want it stored", err)
	}
}
