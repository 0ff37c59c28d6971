package patch

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Generators of objects as a controller would hold them: the identity (name, namespace, uid,
// resourceVersion) is fixed, everything else is drawn.

func labelKeys() *rapid.Generator[string] {
	return rapid.StringMatching(`([a-z]{1,5}\.example\.com/)?[a-z]([a-z0-9.-]{0,6}[a-z0-9])?`)
}

func labelValues() *rapid.Generator[string] {
	return rapid.StringMatching(`([A-Za-z0-9]([-A-Za-z0-9_.]{0,8}[A-Za-z0-9])?)?`)
}

func stringMaps(keys, values *rapid.Generator[string]) *rapid.Generator[map[string]string] {
	return rapid.MapOfN(keys, values, 0, 5)
}

func finalizerLists() *rapid.Generator[[]string] {
	return rapid.SliceOfNDistinct(rapid.SampledFrom([]string{
		"example.com/first", "example.com/second", "example.com/third", "kubernetes", "foregroundDeletion",
	}), 0, 4, rapid.ID[string])
}

func drawConfigMap(t *rapid.T, label string) *corev1.ConfigMap {
	cm := configMap()
	cm.Labels = stringMaps(labelKeys(), labelValues()).Draw(t, label+".labels")
	cm.Annotations = stringMaps(labelKeys(), rapid.String()).Draw(t, label+".annotations")
	cm.Finalizers = finalizerLists().Draw(t, label+".finalizers")
	cm.Data = stringMaps(rapid.StringMatching(`[-._a-zA-Z0-9]{1,8}`), rapid.String()).Draw(t, label+".data")
	return cm
}

func drawDeployment(t *rapid.T, label string) *appsv1.Deployment {
	d := deployment()
	d.Labels = stringMaps(labelKeys(), labelValues()).Draw(t, label+".labels")
	d.Finalizers = finalizerLists().Draw(t, label+".finalizers")
	d.Spec.Replicas = rapid.Ptr(rapid.Int32Range(0, 10), true).Draw(t, label+".replicas")
	d.Spec.Paused = rapid.Bool().Draw(t, label+".paused")
	d.Spec.Template.Labels = stringMaps(labelKeys(), labelValues()).Draw(t, label+".template.labels")
	names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"app", "sidecar", "metrics", "init", "proxy"}), 1, 4, rapid.ID[string]).
		Draw(t, label+".containers")
	d.Spec.Template.Spec.Containers = nil
	for _, name := range names {
		c := corev1.Container{Name: name, Image: rapid.SampledFrom([]string{name + ":1", name + ":2", "busybox"}).Draw(t, label+"."+name+".image")}
		for _, env := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"MODE", "DEBUG", "LEVEL"}), 0, 3, rapid.ID[string]).Draw(t, label+"."+name+".env") {
			c.Env = append(c.Env, corev1.EnvVar{Name: env, Value: labelValues().Draw(t, label+"."+name+"."+env)})
		}
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, c)
	}
	return d
}

// roundTrip checks the property shared by every patch a client computes from two objects: applied to the
// first, the patch yields the second (want, which is modified unless said otherwise).
func roundTrip(t *rapid.T, original, modified, want client.Object, p client.Patch, opts Options) {
	data, err := p.Data(modified)
	if err != nil {
		t.Fatalf("computing the patch: %v", err)
	}
	got, err := Apply(original, p.Type(), data, opts)
	if err != nil {
		t.Fatalf("Apply(%s, %s): %v", p.Type(), data, err)
	}
	if !equality.Semantic.DeepEqual(want, got) {
		t.Fatalf("patch %s did not yield the modified object:\n%s", data, diff(want, got))
	}
}

// strategicWant is what a strategic merge patch from original to modified yields: modified, except that
// strategicpatch.CreateTwoWayMergePatch does not convey a reordering of finalizers into sorted order
// (see TestStrategicMergeFromMissesASortingReorderOfFinalizers).
func strategicWant(original, modified client.Object) client.Object {
	want := modified.DeepCopyObject().(client.Object)
	o, m := original.GetFinalizers(), modified.GetFinalizers()
	if len(o) == len(m) && sets.New(o...).Equal(sets.New(m...)) && slices.IsSorted(m) {
		want.SetFinalizers(o)
	}
	return want
}

// The patch controller-runtime's client.MergeFrom(original) computes for modified yields modified when
// the apiserver applies it to original (sigs.k8s.io/controller-runtime@v0.25.2/pkg/client/patch.go).
func TestMergeFromRoundTrip(t *testing.T) {
	opts := Options{Strategic: true, GroupResource: deployments}
	rapid.Check(t, func(t *rapid.T) {
		original := drawConfigMap(t, "original")
		modified := drawConfigMap(t, "modified")
		roundTrip(t, original, modified, modified, client.MergeFrom(original), builtin)
	})
	rapid.Check(t, func(t *rapid.T) {
		original := drawDeployment(t, "original")
		modified := drawDeployment(t, "modified")
		roundTrip(t, original, modified, modified, client.MergeFrom(original), opts)
	})
}

// The same for client.StrategicMergeFrom: lists with a merge key or merge strategy (containers, env,
// finalizers) are patched item by item, with $setElementOrder keeping modified's order, except for one
// reordering of finalizers.
func TestStrategicMergeFromRoundTrip(t *testing.T) {
	opts := Options{Strategic: true, GroupResource: deployments}
	rapid.Check(t, func(t *rapid.T) {
		original := drawConfigMap(t, "original")
		modified := drawConfigMap(t, "modified")
		roundTrip(t, original, modified, strategicWant(original, modified), client.StrategicMergeFrom(original), builtin)
	})
	rapid.Check(t, func(t *rapid.T) {
		original := drawDeployment(t, "original")
		modified := drawDeployment(t, "modified")
		roundTrip(t, original, modified, strategicWant(original, modified), client.StrategicMergeFrom(original), opts)
	})
}

// A client-side quirk the round trip found: for a list of scalars with patchStrategy merge, such as
// finalizers, CreateTwoWayMergePatch sorts original in place before it checks whether the order changed
// (diffLists and diffListsOfScalars in k8s.io/apimachinery@v0.37.2/pkg/util/strategicpatch/patch.go).
// So a reordering into sorted order, and nothing else, gives an empty patch and the stored order stays;
// any other reordering is conveyed by $setElementOrder, as is a reordering of containers.
func TestStrategicMergeFromMissesASortingReorderOfFinalizers(t *testing.T) {
	reorder := func(from, to []string) (string, *corev1.ConfigMap) {
		original := configMap()
		original.Finalizers = from
		modified := original.DeepCopy()
		modified.Finalizers = to
		data, err := client.StrategicMergeFrom(original).Data(modified)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), mustApply(t, original, types.StrategicMergePatchType, string(data), builtin).(*corev1.ConfigMap)
	}

	data, got := reorder([]string{"kubernetes", "example.com/first"}, []string{"example.com/first", "kubernetes"})
	if data != "{}" || !slices.Equal(got.Finalizers, []string{"kubernetes", "example.com/first"}) {
		t.Errorf("sorting reorder: patch %s gave finalizers %q, want {} and the stored order", data, got.Finalizers)
	}
	data, got = reorder([]string{"example.com/first", "kubernetes"}, []string{"kubernetes", "example.com/first"})
	if !slices.Equal(got.Finalizers, []string{"kubernetes", "example.com/first"}) {
		t.Errorf("other reorder: patch %s gave finalizers %q, want the new order", data, got.Finalizers)
	}

	dep := deployment()
	reordered := dep.DeepCopy()
	c := reordered.Spec.Template.Spec.Containers
	reordered.Spec.Template.Spec.Containers = []corev1.Container{c[1], c[0]}
	depPatch, err := client.StrategicMergeFrom(dep).Data(reordered)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, reordered, mustApply(t, dep, types.StrategicMergePatchType, string(depPatch), builtin))
}

// client.MergeFromWithOptimisticLock puts original's resourceVersion in the patch: the patched object
// carries it, so the update that follows conflicts if the stored object has moved on.
func TestMergeFromOptimisticLockCarriesResourceVersion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		original := drawConfigMap(t, "original")
		original.ResourceVersion = rapid.StringMatching(`[1-9][0-9]{0,5}`).Draw(t, "seen resourceVersion")
		modified := drawConfigMap(t, "modified")
		modified.ResourceVersion = original.ResourceVersion
		stored := original.DeepCopy()
		stored.ResourceVersion = rapid.StringMatching(`[1-9][0-9]{0,5}`).Draw(t, "stored resourceVersion")

		data, err := client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}).Data(modified)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Apply(stored, types.MergePatchType, data, builtin)
		if err != nil {
			t.Fatal(err)
		}
		if rv := got.(*corev1.ConfigMap).ResourceVersion; rv != original.ResourceVersion {
			t.Fatalf("patched object has resourceVersion %q, want the patch's %q (stored is %q)", rv, original.ResourceVersion, stored.ResourceVersion)
		}
	})
}

// Whatever the body, Apply returns either an object of current's Go type with current's name, or a
// *apierrors.StatusError with one of the codes the real patch handler gives; it never panics.
func TestAnyBodyGivesAnObjectOrAStatus(t *testing.T) {
	patchTypes := []types.PatchType{types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType}
	rapid.Check(t, func(t *rapid.T) {
		pt := rapid.SampledFrom(patchTypes).Draw(t, "patch type")
		var body []byte
		if rapid.Bool().Draw(t, "raw bytes") {
			body = rapid.SliceOfN(rapid.Byte(), 0, 40).Draw(t, "body")
		} else {
			var err error
			if body, err = json.Marshal(jsonValues(3).Draw(t, "body")); err != nil {
				t.Fatal(err)
			}
		}
		opts := Options{Strategic: true, GroupResource: deployments}
		opts.PatchOptions.FieldValidation = rapid.SampledFrom([]string{"", metav1.FieldValidationIgnore, metav1.FieldValidationStrict}).Draw(t, "fieldValidation")
		checkOutcome(t, deployment(), pt, body, opts)
	})
}

func checkOutcome(t interface{ Fatalf(string, ...any) }, current *appsv1.Deployment, pt types.PatchType, body []byte, opts Options) {
	got, err := Apply(current, pt, body, opts)
	if err != nil {
		se, ok := err.(*apierrors.StatusError)
		if !ok {
			t.Fatalf("error %v is a %T, want *apierrors.StatusError", err, err)
		}
		switch se.ErrStatus.Code {
		case 400, 413, 415, 422, 500:
		default:
			t.Fatalf("status code %d for %s %q", se.ErrStatus.Code, pt, body)
		}
		return
	}
	d, ok := got.(*appsv1.Deployment)
	if !ok || d.Name != current.Name || d.Namespace != current.Namespace {
		t.Fatalf("Apply(%s, %q) = %#v, want a Deployment named %s/%s", pt, body, got, current.Namespace, current.Name)
	}
}

// jsonValues draws JSON values shaped like patches: objects whose keys are often field names or patch
// directives of a Deployment.
func jsonValues(depth int) *rapid.Generator[any] {
	keys := rapid.SampledFrom([]string{
		"metadata", "spec", "name", "labels", "finalizers", "replicas", "template", "containers", "image",
		"strategy", "type", "op", "path", "value", "from", "$patch", "$retainKeys", "$setElementOrder/containers",
		"$deleteFromPrimitiveList/finalizers", "x",
	})
	scalars := rapid.OneOf(
		rapid.Just[any](nil), rapid.Bool().AsAny(), rapid.Int32Range(-3, 3).AsAny(),
		rapid.SampledFrom([]string{"", "web", "delete", "replace", "merge", "add", "remove", "test", "/spec/replicas", "/metadata/name", "-"}).AsAny(),
	)
	if depth == 0 {
		return scalars
	}
	inner := jsonValues(depth - 1)
	return rapid.OneOf(
		scalars,
		rapid.Custom(func(t *rapid.T) any { return rapid.SliceOfN(inner, 0, 3).Draw(t, "list") }),
		rapid.Custom(func(t *rapid.T) any { return rapid.MapOfN(keys, inner, 0, 3).Draw(t, "object") }),
	)
}

// FuzzApply feeds arbitrary bodies to each patch type (go test -fuzz=FuzzApply ./sim/patch/).
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		`{"spec":{"replicas":3}}`, `null`, `[]`, `{"$patch":"delete"}`,
		`[{"op":"remove","path":"/spec/template/spec/containers/0"}]`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"app","$patch":"delete"}]}}}}`,
	} {
		for pt := range 3 {
			f.Add(uint8(pt), []byte(seed))
		}
	}
	patchTypes := []types.PatchType{types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType}
	f.Fuzz(func(t *testing.T, pt uint8, body []byte) {
		checkOutcome(t, deployment(), patchTypes[int(pt)%len(patchTypes)], body, Options{Strategic: true, GroupResource: deployments})
	})
}

func BenchmarkMergePatchConfigMap(b *testing.B) {
	current := configMap()
	for i := range 10 {
		current.Data[fmt.Sprintf("key-%d", i)] = fmt.Sprintf("value-%d", i)
	}
	body := []byte(`{"data":{"size":"small"},"metadata":{"labels":{"tier":"front"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(current, types.MergePatchType, body, builtin); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStrategicMergePatchDeployment(b *testing.B) {
	current := deployment()
	body := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`)
	opts := Options{Strategic: true, GroupResource: deployments}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(current, types.StrategicMergePatchType, body, opts); err != nil {
			b.Fatal(err)
		}
	}
}
