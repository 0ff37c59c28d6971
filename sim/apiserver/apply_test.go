package apiserver_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
)

func applyCM(w *world, manager string, force bool, body string) (*corev1.ConfigMap, error) {
	out := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	o := apiserver.WriteOptions{FieldManager: manager}
	if force {
		o.Force = ptr.To(true)
	}
	err := w.s.PatchWith(admin, out, types.ApplyYAMLPatchType, []byte(body), "", o)
	return out, err
}

func managers(o metav1.Object) []string {
	var out []string
	for _, e := range o.GetManagedFields() {
		out = append(out, e.Manager+"/"+string(e.Operation))
	}
	return out
}

func TestApplyCreatesAMissingObjectOwnedByItsManager(t *testing.T) {
	w := newWorld(t)
	got, err := applyCM(w, "alice", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1"}}`)
	w.must(err)
	if got.Data["a"] != "1" || got.UID == "" || got.ResourceVersion == "" {
		t.Fatalf("apply did not create the object: %+v", got)
	}
	mf := got.GetManagedFields()
	if len(mf) != 1 || mf[0].Manager != "alice" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Fatalf("managedFields = %v, want one Apply entry by alice", managers(got))
	}
	if !strings.Contains(string(mf[0].FieldsV1.Raw), `"f:a"`) {
		t.Fatalf("alice's fields %s do not include data.a", mf[0].FieldsV1.Raw)
	}
	if !mf[0].Time.Time.Equal(w.clock.Now().Truncate(time.Second)) {
		t.Fatalf("managedFields time %v is not the virtual clock's %v", mf[0].Time, w.clock.Now())
	}
}

func TestApplyOfAFieldAnotherManagerOwnsConflictsUnlessForced(t *testing.T) {
	w := newWorld(t)
	_, err := applyCM(w, "alice", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1"}}`)
	w.must(err)
	_, err = applyCM(w, "bob", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"2"}}`)
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `Apply failed with 1 conflict: conflict with "alice": .data.a`) {
		t.Fatalf("err = %v, want the field manager's conflict naming alice and .data.a", err)
	}
	got, err := applyCM(w, "bob", true, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"2"}}`)
	w.must(err)
	if got.Data["a"] != "2" {
		t.Fatalf("force did not take the field: %v", got.Data)
	}
	for _, e := range got.GetManagedFields() {
		if e.Manager == "alice" && strings.Contains(string(e.FieldsV1.Raw), `"f:a"`) {
			t.Fatalf("alice still owns data.a after bob forced it: %s", e.FieldsV1.Raw)
		}
	}
}

func TestApplyRemovesTheFieldsItsManagerStopsApplying(t *testing.T) {
	w := newWorld(t)
	_, err := applyCM(w, "alice", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1","b":"2"}}`)
	w.must(err)
	got, err := applyCM(w, "alice", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1"}}`)
	w.must(err)
	if _, ok := got.Data["b"]; ok {
		t.Fatalf("data.b, no longer applied by its only owner, was kept: %v", got.Data)
	}
}

func TestAnIdenticalApplyWritesNothing(t *testing.T) {
	w := newWorld(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"},"data":{"a":"1"}}`
	first, err := applyCM(w, "alice", false, body)
	w.must(err)
	w.clock.AdvanceTo(w.clock.Now().Add(5 * time.Second))
	again, err := applyCM(w, "alice", false, body)
	w.must(err)
	if again.ResourceVersion != first.ResourceVersion {
		t.Fatalf("a no-op apply wrote: resourceVersion %s -> %s", first.ResourceVersion, again.ResourceVersion)
	}
}

func TestApplyRequiresAFieldManager(t *testing.T) {
	w := newWorld(t)
	_, err := applyCM(w, "", false, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns"}}`)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "fieldManager: Required value: is required for apply patch") {
		t.Fatalf("err = %v, want the PatchOptions 422", err)
	}
}

func TestUpdatesRecordTheirManagerFromTheUserAgent(t *testing.T) {
	w := newWorld(t)
	u := apiserver.User{Name: "system:masters-user", Groups: []string{"system:masters"}, Agent: "op"}
	c := cm("c")
	w.must(w.s.Create(u, c))
	if got := managers(c); len(got) != 1 || got[0] != "op/Update" {
		t.Fatalf("after create managedFields = %v, want [op/Update]", got)
	}
	c.Data["k2"] = "v2"
	w.must(w.s.UpdateWith(u, c, "", apiserver.WriteOptions{FieldManager: "other"}))
	if got := managers(c); len(got) != 2 || got[1] != "other/Update" {
		t.Fatalf("after update managedFields = %v, want [op/Update other/Update]", got)
	}
}

func TestApplyToTheStatusSubresourceOwnsStatusOnly(t *testing.T) {
	w := newWorld(t)
	d := &appsv1.Deployment{}
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	d.Namespace, d.Name = "ns", "d"
	w.must(w.s.PatchWith(admin, d, types.ApplyYAMLPatchType, []byte(body), "", apiserver.WriteOptions{FieldManager: "op"}))
	st := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"status":{"replicas":3}}`
	w.must(w.s.PatchWith(admin, d, types.ApplyYAMLPatchType, []byte(st), "status", apiserver.WriteOptions{FieldManager: "st"}))
	if d.Status.Replicas != 3 {
		t.Fatalf("status apply did not set status: %+v", d.Status)
	}
	var found bool
	for _, e := range d.GetManagedFields() {
		if e.Manager == "st" {
			found = true
			if e.Subresource != "status" || strings.Contains(string(e.FieldsV1.Raw), "f:spec") {
				t.Fatalf("status manager's entry %+v", e)
			}
		}
	}
	if !found {
		t.Fatalf("no entry for the status manager: %v", managers(d))
	}
	// A status apply of a missing object is a 404: the status store does not create.
	missing := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "none"}}
	err := w.s.PatchWith(admin, missing, types.ApplyYAMLPatchType, []byte(strings.ReplaceAll(st, `"d"`, `"none"`)), "status", apiserver.WriteOptions{FieldManager: "st"})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound", err)
	}
}

func TestApplyOfACustomResourceUsesItsSchema(t *testing.T) {
	s := schemaServer(t, apiservertest.WidgetManifest)
	wd := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	body := `{"apiVersion":"test.ctrlsim.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"size":3,"tags":{"a":"x"}}}`
	if err := s.PatchWith(admin, wd, types.ApplyYAMLPatchType, []byte(body), "", apiserver.WriteOptions{FieldManager: "alice"}); err != nil {
		t.Fatal(err)
	}
	body2 := `{"apiVersion":"test.ctrlsim.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"tags":{"b":"y"}}}`
	if err := s.PatchWith(admin, wd, types.ApplyYAMLPatchType, []byte(body2), "", apiserver.WriteOptions{FieldManager: "bob"}); err != nil {
		t.Fatal(err)
	}
	// tags is a map: bob's key joins alice's rather than replacing the map.
	if wd.Spec.Size != 3 || wd.Spec.Tags["a"] != "x" || wd.Spec.Tags["b"] != "y" {
		t.Fatalf("spec = %+v, want size 3 and both tags", wd.Spec)
	}
	body3 := `{"apiVersion":"test.ctrlsim.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"size":4}}`
	err := s.PatchWith(admin, wd, types.ApplyYAMLPatchType, []byte(body3), "", apiserver.WriteOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "alice": .spec.size`) {
		t.Fatalf("err = %v, want a conflict with alice on .spec.size", err)
	}
}
