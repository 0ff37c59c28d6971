package apiserver_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
)

// A create of a kind with a status subresource drops .status before the body
// is defaulted and validated (customResourceStrategy.PrepareForCreate runs
// before Validate): a typed object whose zero status serializes as
// {"conditions": null, "worn": false} is accepted, and so is a status that
// its schema would refuse, since it is never stored.
func TestCreateDropsStatusBeforeValidating(t *testing.T) {
	s := schemaServer(t, apiservertest.SprocketManifest)
	sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "zero"}, Spec: apiservertest.SprocketSpec{Teeth: 3}}
	if err := s.Create(apiserver.Admin, sp); err != nil {
		t.Fatalf("create with a zero status: %v", err)
	}
	bad := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bad"},
		Status: apiservertest.SprocketStatus{Worn: true, Conditions: []metav1.Condition{{Type: "Ready"}}}} // no status, reason, message
	if err := s.Create(apiserver.Admin, bad); err != nil {
		t.Fatalf("create with a status the schema refuses: %v", err)
	}
	got := &apiservertest.Sprocket{}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(bad), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Worn || got.Status.Conditions != nil {
		t.Errorf("stored status %+v, want none", got.Status)
	}

	// The main resource keeps the stored (absent) status; the status
	// subresource validates what it writes.
	got.Spec.Teeth = 4
	if err := s.Update(apiserver.Admin, got, ""); err != nil {
		t.Fatalf("update of the main resource: %v", err)
	}
	got.Status.Conditions = []metav1.Condition{{Type: "Ready"}}
	if err := s.Update(apiserver.Admin, got, "status"); err == nil {
		t.Errorf("status update with a condition lacking required fields was accepted")
	}
	got.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Up", Message: "m", LastTransitionTime: metav1.Unix(1, 0)}}
	if err := s.Update(apiserver.Admin, got, "status"); err != nil {
		t.Fatalf("valid status update: %v", err)
	}

	// A create must still validate the spec.
	neg := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "neg"}, Spec: apiservertest.SprocketSpec{Teeth: -1}}
	if err := s.Create(apiserver.Admin, neg); err == nil {
		t.Errorf("create with spec.teeth -1 was accepted")
	}
}

// An update of the main resource of a kind with a status subresource takes
// the stored status before the body is validated
// (customResourceStrategy.PrepareForUpdate): an operator's first write, an
// Update of its whole typed custom resource read back with a zero status
// ({"conditions": null}: status.conditions, a required list, missing once
// the null is pruned), is accepted, and whatever status it carries is not
// stored. The status subresource still validates the status it writes.
func TestUpdateValidatesTheStoredStatusNotTheRequests(t *testing.T) {
	s := schemaServer(t, apiservertest.SprocketManifest)
	sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "op"}, Spec: apiservertest.SprocketSpec{Teeth: 3}}
	if err := s.Create(apiserver.Admin, sp); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &apiservertest.Sprocket{}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(sp), got); err != nil {
		t.Fatal(err)
	}
	got.Finalizers = []string{"test.ctrlsim.dev/cleanup"}
	if err := s.Update(apiserver.Admin, got, ""); err != nil {
		t.Fatalf("update adding a finalizer, zero status: %v", err)
	}
	got.Spec.Teeth = 5
	got.Status.Worn = true
	if err := s.Update(apiserver.Admin, got, ""); err != nil {
		t.Fatalf("update of the spec, status changed in the body: %v", err)
	}
	if got.Spec.Teeth != 5 || got.Status.Worn || got.Generation != 2 {
		t.Errorf("after the update: teeth %d, worn %v, generation %d; want 5, false (the stored status), 2", got.Spec.Teeth, got.Status.Worn, got.Generation)
	}
	// A merge patch of the main resource that sets status: the status is the stored one.
	if err := s.Patch(apiserver.Admin, got, types.MergePatchType, []byte(`{"spec":{"teeth":6},"status":{"worn":true,"conditions":null}}`), ""); err != nil {
		t.Fatalf("merge patch of the main resource: %v", err)
	}
	if got.Spec.Teeth != 6 || got.Status.Worn {
		t.Errorf("after the patch: teeth %d, worn %v; want 6, false", got.Spec.Teeth, got.Status.Worn)
	}

	// The status subresource validates what it writes: a zero status is refused.
	err := s.Update(apiserver.Admin, got, "status")
	if want := `Sprocket.test.ctrlsim.dev "op" is invalid: status.conditions: Required value`; err == nil || err.Error() != want {
		t.Errorf("status write of a zero status: %v, want %s", err, want)
	}
	got.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Up", Message: "m", LastTransitionTime: metav1.Unix(1, 0)}}
	if err := s.Update(apiserver.Admin, got, "status"); err != nil {
		t.Fatalf("valid status write: %v", err)
	}
	// Then an update of the main resource whose body drops the conditions
	// keeps them.
	got.Status.Conditions = nil
	got.Spec.Teeth = 7
	if err := s.Update(apiserver.Admin, got, ""); err != nil {
		t.Fatalf("update with the conditions dropped from the body: %v", err)
	}
	if len(got.Status.Conditions) != 1 || got.Spec.Teeth != 7 {
		t.Errorf("after the update: conditions %v, teeth %d; want the stored Ready condition, 7", got.Status.Conditions, got.Spec.Teeth)
	}
	// The spec is still validated.
	got.Spec.Teeth = -1
	if err := s.Update(apiserver.Admin, got, ""); err == nil || !strings.Contains(err.Error(), "spec.teeth") {
		t.Errorf("update with spec.teeth -1: %v, want refused for spec.teeth", err)
	}
}

// The stored status an update of the main resource keeps is the stored
// object as kube-apiserver reads it, defaulted with the schema it serves
// now: a status default added to the CRD after the status was written is
// in what the update stores.
func TestUpdateKeepsTheStoredStatusDefaulted(t *testing.T) {
	s := crdObjectServer(t)
	s.CreateDefaultNamespaces()
	def := crdObject(t, apiservertest.WidgetManifest)
	if err := s.Create(apiserver.Admin, def); err != nil {
		t.Fatal(err)
	}
	w := schemaWidget("w", apiservertest.WidgetSpec{Size: 1})
	if err := s.Create(apiserver.Admin, w); err != nil {
		t.Fatal(err)
	}
	w.Status.Phase = "Ready"
	if err := s.Update(apiserver.Admin, w, "status"); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(def), def); err != nil {
		t.Fatal(err)
	}
	status := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	og := status.Properties["observedGeneration"]
	og.Default = &apiextensionsv1.JSON{Raw: []byte("7")}
	status.Properties["observedGeneration"] = og
	def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"] = status
	if err := s.Update(apiserver.Admin, def, ""); err != nil {
		t.Fatal(err)
	}
	w.Spec.Size = 2
	w.Status = apiservertest.WidgetStatus{}
	if err := s.Update(apiserver.Admin, w, ""); err != nil {
		t.Fatal(err)
	}
	if w.Status.Phase != "Ready" || w.Status.ObservedGeneration != 7 {
		t.Errorf("status after the update %+v, want the stored Ready with the new default 7", w.Status)
	}
}
