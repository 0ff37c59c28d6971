package patch

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// patchCase is one patch that must succeed: want is current after the change the patch describes.
type patchCase struct {
	name    string
	current func() runtime.Object
	patch   string
	opts    Options
	want    func(runtime.Object)
}

func runPatchCases(t *testing.T, pt types.PatchType, cases []patchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := tc.current()
			want := current.DeepCopyObject()
			tc.want(want)
			got := mustApply(t, current, pt, tc.patch, tc.opts)
			assertSame(t, want, got)
		})
	}
}

func cm() runtime.Object  { return configMap() }
func dep() runtime.Object { return deployment() }
func wid() runtime.Object { return widget() }

func asCM(f func(*corev1.ConfigMap)) func(runtime.Object) {
	return func(o runtime.Object) { f(o.(*corev1.ConfigMap)) }
}

func asDep(f func(*appsv1.Deployment)) func(runtime.Object) {
	return func(o runtime.Object) { f(o.(*appsv1.Deployment)) }
}

func asWidget(f func(*Widget)) func(runtime.Object) {
	return func(o runtime.Object) { f(o.(*Widget)) }
}

func containers(o *appsv1.Deployment) *[]corev1.Container { return &o.Spec.Template.Spec.Containers }

// JSON merge patch (RFC 7386) is jsonpatch.MergePatch of gopkg.in/evanphx/json-patch.v4 on the object's
// JSON, as jsonPatcher.applyJSPatch does (k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go).
func TestMergePatch(t *testing.T) {
	runPatchCases(t, types.MergePatchType, []patchCase{
		{
			name: "nested maps are merged key by key", current: cm, opts: builtin,
			patch: `{"data":{"size":"small","shape":"round"},"metadata":{"labels":{"tier":"front"}}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Data["size"] = "small"
				o.Data["shape"] = "round"
				o.Labels["tier"] = "front"
			}),
		},
		{
			name: "null deletes a key", current: cm, opts: builtin,
			patch: `{"data":{"color":null},"metadata":{"labels":{"app.kubernetes.io/name":null}}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				delete(o.Data, "color")
				delete(o.Labels, "app.kubernetes.io/name")
			}),
		},
		{
			name: "null deletes a whole map", current: cm, opts: builtin,
			patch: `{"metadata":{"labels":null}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Labels = nil }),
		},
		{
			name: "arrays are replaced, never merged: containers", current: dep, opts: builtin,
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`,
			want: asDep(func(o *appsv1.Deployment) {
				*containers(o) = []corev1.Container{{Name: "app", Image: "app:2"}}
			}),
		},
		{
			name: "arrays are replaced, never merged: finalizers", current: cm, opts: builtin,
			patch: `{"metadata":{"finalizers":["example.com/second"]}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Finalizers = []string{"example.com/second"} }),
		},
		{
			name: "an empty array clears finalizers", current: cm, opts: builtin,
			patch: `{"metadata":{"finalizers":[]}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Finalizers = nil }),
		},
		{
			name: "scalars are replaced and pointers set", current: dep, opts: builtin,
			patch: `{"spec":{"replicas":5,"paused":true}}`,
			want: asDep(func(o *appsv1.Deployment) {
				o.Spec.Replicas = ptr.To[int32](5)
				o.Spec.Paused = true
			}),
		},
		{
			name: "null clears an optional pointer field", current: dep, opts: builtin,
			patch: `{"spec":{"replicas":null}}`,
			want:  asDep(func(o *appsv1.Deployment) { o.Spec.Replicas = nil }),
		},
		{
			name: "an empty patch changes nothing", current: dep, opts: builtin,
			patch: `{}`,
			want:  func(runtime.Object) {},
		},
		{
			name: "metadata.resourceVersion in the patch is carried by the patched object (the update's precondition)", current: cm, opts: builtin,
			patch: `{"metadata":{"resourceVersion":"12"},"data":{"size":"small"}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.ResourceVersion = "12"
				o.Data["size"] = "small"
			}),
		},
		{
			name: "a patch without metadata.resourceVersion keeps current's", current: cm, opts: builtin,
			patch: `{"data":{"size":"small"}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["size"] = "small" }),
		},
		{
			name: "a removed metadata.namespace is set back to the request namespace", current: cm, opts: builtin,
			patch: `{"metadata":{"namespace":null}}`,
			want:  func(runtime.Object) {},
		},
		{
			name: "unknown fields are dropped (fieldValidation Warn by default)", current: cm, opts: builtin,
			patch: `{"spec":{"replicas":3},"data":{"size":"small"}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["size"] = "small" }),
		},
		{
			name: "the served apiVersion and kind may be repeated in the patch", current: cm,
			opts:  Options{Strategic: true, GroupResource: configMaps, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap")},
			patch: `{"apiVersion":"v1","kind":"ConfigMap","data":{"size":"small"}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["size"] = "small" }),
		},
		{
			name: "custom resources take merge patches", current: wid, opts: custom,
			patch: `{"spec":{"size":4,"parts":["c"]}}`,
			want: asWidget(func(o *Widget) {
				o.Spec.Size = 4
				o.Spec.Parts = []string{"c"}
			}),
		},
	})

	t.Run("a metadata.namespace set on a cluster-scoped object is cleared", func(t *testing.T) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", UID: "uid-ns"}}
		opts := Options{Strategic: true, GroupResource: schema.GroupResource{Resource: "namespaces"}}
		got := mustApply(t, ns, types.MergePatchType, `{"metadata":{"namespace":"elsewhere","labels":{"a":"b"}}}`, opts).(*corev1.Namespace)
		if got.Namespace != "" || got.Labels["a"] != "b" {
			t.Errorf("got namespace %q labels %v, want no namespace and the label", got.Namespace, got.Labels)
		}
	})

	t.Run("a Content-Type parameter such as charset is ignored", func(t *testing.T) {
		got := mustApply(t, configMap(), types.MergePatchType+"; charset=utf-8", `{"data":{"size":"small"}}`, builtin)
		if got.(*corev1.ConfigMap).Data["size"] != "small" {
			t.Errorf("patch with a charset parameter was not applied: %v", got)
		}
	})
}

// Strategic merge patch is strategicpatch.StrategicMergeMapPatch with the Go struct as the schema
// (smpPatcher in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go): lists follow their
// patchStrategy and patchMergeKey tags.
func TestStrategicMergePatch(t *testing.T) {
	depOpts := Options{Strategic: true, GroupResource: deployments}
	runPatchCases(t, types.StrategicMergePatchType, []patchCase{
		{
			// Without $setElementOrder, strategicpatch puts the patch's items first, in patch order, then
			// the others (normalizeElementOrder in k8s.io/apimachinery/pkg/util/strategicpatch/patch.go).
			name: "containers are merged by name: listed ones are updated or added, and come first in patch order", current: dep, opts: depOpts,
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"},{"name":"metrics","image":"metrics:1"}]}}}}`,
			want: asDep(func(o *appsv1.Deployment) {
				c := *containers(o)
				c[0].Image = "app:2"
				*containers(o) = []corev1.Container{c[0], {Name: "metrics", Image: "metrics:1"}, c[1]}
			}),
		},
		{
			name: "env of a container is merged by name too", current: dep, opts: depOpts,
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"DEBUG","value":"1"}]}]}}}}`,
			want:  asDep(func(o *appsv1.Deployment) { (*containers(o))[0].Env[1].Value = "1" }),
		},
		{
			name: "$patch: delete removes a list item by its merge key", current: dep, opts: depOpts,
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`,
			want:  asDep(func(o *appsv1.Deployment) { *containers(o) = (*containers(o))[:1] }),
		},
		{
			name: "$patch: replace replaces the whole list", current: dep, opts: depOpts,
			patch: `{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"only:1"},{"$patch":"replace"}]}}}}`,
			want: asDep(func(o *appsv1.Deployment) {
				*containers(o) = []corev1.Container{{Name: "only", Image: "only:1"}}
			}),
		},
		{
			name: "$setElementOrder reorders a merged list", current: dep, opts: depOpts,
			patch: `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"sidecar"},{"name":"app"}]}}}}`,
			want: asDep(func(o *appsv1.Deployment) {
				c := *containers(o)
				*containers(o) = []corev1.Container{c[1], c[0]}
			}),
		},
		{
			name: "$retainKeys clears the fields it does not list (spec.strategy has patchStrategy retainKeys)", current: dep, opts: depOpts,
			patch: `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}`,
			want: asDep(func(o *appsv1.Deployment) {
				o.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			}),
		},
		{
			name: "without $retainKeys the other fields of spec.strategy stay", current: dep, opts: depOpts,
			patch: `{"spec":{"strategy":{"type":"Recreate"}}}`,
			want:  asDep(func(o *appsv1.Deployment) { o.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType }),
		},
		{
			name: "metadata.finalizers has patchStrategy merge: a strategic patch adds to the list (patch items first)", current: cm, opts: builtin,
			patch: `{"metadata":{"finalizers":["example.com/second"]}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Finalizers = []string{"example.com/second", "example.com/first"}
			}),
		},
		{
			name: "a finalizer already present is not added twice", current: cm, opts: builtin,
			patch: `{"metadata":{"finalizers":["example.com/first"]}}`,
			want:  func(runtime.Object) {},
		},
		{
			name: "$deleteFromPrimitiveList removes a finalizer", current: cm, opts: builtin,
			patch: `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/first"]}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Finalizers = nil }),
		},
		{
			name: "labels merge like a JSON merge patch, null deletes", current: cm, opts: builtin,
			patch: `{"metadata":{"labels":{"tier":"front","app":null}}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Labels["tier"] = "front"
				delete(o.Labels, "app")
			}),
		},
		{
			name: "ownerReferences are merged by uid", current: cm, opts: builtin,
			patch: `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"u-s"}]}}`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "u-s"}}
			}),
		},
		{
			name: "null is an empty patch", current: cm, opts: builtin,
			patch: `null`,
			want:  func(runtime.Object) {},
		},
		{
			name: "metadata.resourceVersion in the patch is carried by the patched object", current: cm, opts: builtin,
			patch: `{"metadata":{"resourceVersion":"12"}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.ResourceVersion = "12" }),
		},
		{
			name: "a change of kind is ignored: the map is converted into the served type", current: cm, opts: builtin,
			patch: `{"kind":"Secret","data":{"size":"small"}}`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["size"] = "small" }),
		},
		{
			name: "unknown fields are dropped", current: dep, opts: depOpts,
			patch: `{"spec":{"replica":3}}`,
			want:  func(runtime.Object) {},
		},
	})
}

// JSON patch (RFC 6902) is jsonpatch.DecodePatch(...).Apply of gopkg.in/evanphx/json-patch.v4 on the
// object's JSON (jsonPatcher.applyJSPatch).
func TestJSONPatch(t *testing.T) {
	runPatchCases(t, types.JSONPatchType, []patchCase{
		{
			name: "add sets a map key", current: cm, opts: builtin,
			patch: `[{"op":"add","path":"/data/shape","value":"round"}]`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["shape"] = "round" }),
		},
		{
			name: "add with - appends to a list", current: cm, opts: builtin,
			patch: `[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/second"}]`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Finalizers = append(o.Finalizers, "example.com/second")
			}),
		},
		{
			name: "add at an index inserts into a list", current: cm, opts: builtin,
			patch: `[{"op":"add","path":"/metadata/finalizers/0","value":"example.com/zeroth"}]`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Finalizers = []string{"example.com/zeroth", "example.com/first"}
			}),
		},
		{
			name: "replace changes a value; ~1 escapes / in a label key", current: cm, opts: builtin,
			patch: `[{"op":"replace","path":"/metadata/labels/app.kubernetes.io~1name","value":"api"}]`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Labels["app.kubernetes.io/name"] = "api" }),
		},
		{
			name: "remove deletes a key and a list item", current: cm, opts: builtin,
			patch: `[{"op":"remove","path":"/data/color"},{"op":"remove","path":"/metadata/finalizers/0"}]`,
			want: asCM(func(o *corev1.ConfigMap) {
				delete(o.Data, "color")
				o.Finalizers = nil
			}),
		},
		{
			name: "a test that holds lets the next operations apply", current: cm, opts: builtin,
			patch: `[{"op":"test","path":"/metadata/resourceVersion","value":"41"},{"op":"replace","path":"/data/size","value":"small"}]`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Data["size"] = "small" }),
		},
		{
			name: "the document carries the served apiVersion and kind, so a test on them holds", current: cm,
			opts:  Options{Strategic: true, GroupResource: configMaps, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap")},
			patch: `[{"op":"test","path":"/kind","value":"ConfigMap"},{"op":"test","path":"/apiVersion","value":"v1"}]`,
			want:  func(runtime.Object) {},
		},
		{
			name: "move takes a value away from one path to another", current: cm, opts: builtin,
			patch: `[{"op":"move","from":"/data/color","path":"/data/hue"}]`,
			want: asCM(func(o *corev1.ConfigMap) {
				o.Data["hue"] = o.Data["color"]
				delete(o.Data, "color")
			}),
		},
		{
			name: "copy duplicates a value", current: cm, opts: builtin,
			patch: `[{"op":"copy","from":"/data/color","path":"/metadata/labels/color"}]`,
			want:  asCM(func(o *corev1.ConfigMap) { o.Labels["color"] = "blue" }),
		},
		{
			name: "replace of a whole list", current: dep, opts: builtin,
			patch: `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"app:3"},{"op":"remove","path":"/spec/template/spec/containers/1"}]`,
			want: asDep(func(o *appsv1.Deployment) {
				*containers(o) = (*containers(o))[:1]
				(*containers(o))[0].Image = "app:3"
			}),
		},
		{
			name: "an empty list of operations changes nothing", current: dep, opts: builtin,
			patch: `[]`,
			want:  func(runtime.Object) {},
		},
		{
			name: "custom resources take JSON patches", current: wid, opts: custom,
			patch: `[{"op":"replace","path":"/spec/size","value":9}]`,
			want:  asWidget(func(o *Widget) { o.Spec.Size = 9 }),
		},
	})
}

// Apply keeps current's TypeMeta on the result, whatever the patched document said.
func TestResultKeepsTypeMeta(t *testing.T) {
	for _, pt := range []types.PatchType{types.MergePatchType, types.StrategicMergePatchType, types.JSONPatchType} {
		body := `{"spec":{"size":2}}`
		opts := builtin
		if pt == types.JSONPatchType {
			body = `[{"op":"replace","path":"/spec/size","value":2}]`
		}
		got := mustApply(t, widget(), pt, body, opts).(*Widget)
		if got.TypeMeta != widget().TypeMeta || got.Spec.Size != 2 {
			t.Errorf("%s: got TypeMeta %+v size %d, want %+v size 2", pt, got.TypeMeta, got.Spec.Size, widget().TypeMeta)
		}
	}
}
