package apiserver_test

import (
	mathrand "math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// labelled is a ConfigMap with more than data: labels, an annotation, a
// finalizer, an owner, binary data.
func labelled() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"note": "n"}, Finalizers: []string{"example.com/keep"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "u-1"}}},
		Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"bin": {1}},
	}
}

// clientGoScheme is a new scheme of client-go's kinds.
func clientGoScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// clockedServer is a new server of scheme with its default namespaces, and
// its clock at the epoch.
func clockedServer(scheme *runtime.Scheme) (*apiserver.Server, *clock.Clock) {
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: c})
	s.CreateDefaultNamespaces()
	return s, c
}

// createAt creates obj as manager on a new server of scheme at virtual
// instant at and returns what the server stored.
func createAt(t *testing.T, scheme *runtime.Scheme, at time.Duration, manager string, obj *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	s, c := clockedServer(scheme)
	c.Step(at)
	if err := s.CreateWith(admin, obj, apiserver.WriteOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
	return obj
}

// The field manager's record of a create is the same whether a server of
// the scheme made the same create before (the create's managedFields
// remembered) or not (a scheme no server used: computed): the same entries,
// each timed by its own server's clock; and a create of other content or by
// another manager is not given a remembered record.
func TestARememberedCreateRecordsTheSameManagedFieldsAsAComputedOne(t *testing.T) {
	fresh := func() *runtime.Scheme { return clientGoScheme(t) }
	shared := fresh()
	first := createAt(t, shared, time.Second, "op", labelled())
	again := createAt(t, shared, 7*time.Second, "op", labelled())
	computed := createAt(t, fresh(), 7*time.Second, "op", labelled())
	if len(computed.ManagedFields) == 0 {
		t.Fatal("the computed create records no managedFields")
	}
	if !equality.Semantic.DeepEqual(again.ManagedFields, computed.ManagedFields) {
		t.Errorf("remembered create:\n%+v\ncomputed:\n%+v", again.ManagedFields, computed.ManagedFields)
	}
	if got, want := first.ManagedFields[0].Time.Time, clock.Epoch.Add(time.Second); !got.Equal(want) {
		t.Errorf("the first create's entry is timed %v, want its server's %v", got, want)
	}
	if got, want := again.ManagedFields[0].Time.Time, clock.Epoch.Add(7*time.Second); !got.Equal(want) {
		t.Errorf("the remembered create's entry is timed %v, want its own server's %v", got, want)
	}

	other := labelled()
	other.Data["c"] = "3"
	gotOther := createAt(t, shared, time.Second, "op", other)
	wantOther := createAt(t, fresh(), time.Second, "op", func() *corev1.ConfigMap { o := labelled(); o.Data["c"] = "3"; return o }())
	if !equality.Semantic.DeepEqual(gotOther.ManagedFields, wantOther.ManagedFields) {
		t.Errorf("a create with one more key is recorded as\n%+v\nwant\n%+v", gotOther.ManagedFields, wantOther.ManagedFields)
	}
	byOther := createAt(t, shared, time.Second, "another", labelled())
	if byOther.ManagedFields[0].Manager != "another" {
		t.Errorf("a create by another manager is recorded as %q's", byOther.ManagedFields[0].Manager)
	}
}

// A remembered create draws from math/rand's global generator what the
// field manager's own create draws (one Float32, its skipNonAppliedManager's),
// through the draw the world sets: what code under test draws next from that
// generator (wait.Jitter's retry delays) is then the same whether the
// process met the same create in an earlier run or not.
func TestARememberedCreateDrawsWhatAComputedOneDraws(t *testing.T) {
	t.Setenv("GODEBUG", "randseednop=0") // math/rand.Seed is a no-op without it
	apiserver.SetCreateDraw(func() { mathrand.Float32() })
	defer apiserver.SetCreateDraw(nil)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	next := func() int64 {
		mathrand.Seed(1) //nolint:staticcheck // the global generator is what code under test shares
		createAt(t, scheme, time.Second, "op", labelled())
		return mathrand.Int63()
	}
	computed := next()
	remembered := next()
	if computed != remembered {
		t.Errorf("after a remembered create math/rand gives %d, after the computed one %d: the code under test's draws depend on the runs before", remembered, computed)
	}
}

// updateAt creates obj as "op" on a new server of scheme at 1 s, then, at
// virtual instant at, has manager change its data key "a" to "9" and add a
// key "c" by an update, and returns what the server stored.
func updateAt(t *testing.T, scheme *runtime.Scheme, at time.Duration, manager string) *corev1.ConfigMap {
	t.Helper()
	s, c := clockedServer(scheme)
	c.Step(time.Second)
	obj := labelled()
	if err := s.CreateWith(admin, obj, apiserver.WriteOptions{FieldManager: "op"}); err != nil {
		t.Fatal(err)
	}
	c.Step(at - time.Second)
	obj.Data["a"], obj.Data["c"] = "9", "3"
	if err := s.UpdateWith(admin, obj, "", apiserver.WriteOptions{FieldManager: manager}); err != nil {
		t.Fatal(err)
	}
	return obj
}

// The field manager's record of an update is the same whether a server of
// the scheme made the same update of the same live object before (the
// update's managedFields remembered) or not (computed): the creator's entry
// kept with its time, the updater's timed by its own server's clock; and an
// update by another manager, or of a live object of another time, is not
// given a remembered record.
func TestARememberedUpdateRecordsTheSameManagedFieldsAsAComputedOne(t *testing.T) {
	fresh := func() *runtime.Scheme { return clientGoScheme(t) }
	shared := fresh()
	first := updateAt(t, shared, 5*time.Second, "editor")
	again := updateAt(t, shared, 5*time.Second, "editor")
	computed := updateAt(t, fresh(), 5*time.Second, "editor")
	if len(computed.ManagedFields) != 2 {
		t.Fatalf("the computed update records %d managedFields entries, want the creator's and the editor's:\n%+v", len(computed.ManagedFields), computed.ManagedFields)
	}
	for name, got := range map[string]*corev1.ConfigMap{"first": first, "remembered": again} {
		if !equality.Semantic.DeepEqual(got.ManagedFields, computed.ManagedFields) {
			t.Errorf("%s update:\n%+v\ncomputed:\n%+v", name, got.ManagedFields, computed.ManagedFields)
		}
	}
	for _, e := range again.ManagedFields {
		want := clock.Epoch.Add(time.Second)
		if e.Manager == "editor" {
			want = clock.Epoch.Add(5 * time.Second)
		}
		if !e.Time.Time.Equal(want) {
			t.Errorf("the remembered update's entry of %s is timed %v, want %v", e.Manager, e.Time.Time, want)
		}
	}
	later := updateAt(t, shared, 9*time.Second, "editor")
	if got := later.ManagedFields; len(got) != 2 || !got[1].Time.Time.Equal(clock.Epoch.Add(9*time.Second)) {
		t.Errorf("an update at 9 s is recorded as\n%+v\nwant the editor's entry at 9 s", got)
	}
	byOther := updateAt(t, shared, 5*time.Second, "another")
	wantOther := updateAt(t, fresh(), 5*time.Second, "another")
	if !equality.Semantic.DeepEqual(byOther.ManagedFields, wantOther.ManagedFields) {
		t.Errorf("an update by another manager is recorded as\n%+v\nwant\n%+v", byOther.ManagedFields, wantOther.ManagedFields)
	}
}
