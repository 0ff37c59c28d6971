package apiserver_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
