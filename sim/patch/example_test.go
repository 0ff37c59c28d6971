package patch_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/patch"
)

// A merge patch that carries metadata.resourceVersion: the patched object carries it too, and the update
// the apiserver model then makes conflicts because the stored object is at 42.
func ExampleApply() {
	stored := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "team-a", UID: "u1", ResourceVersion: "42"},
		Data:       map[string]string{"color": "blue", "size": "large"},
	}
	body := []byte(`{"metadata":{"resourceVersion":"41"},"data":{"color":null,"size":"small"}}`)
	opts := patch.Options{Strategic: true, GroupResource: schema.GroupResource{Resource: "configmaps"}}

	obj, err := patch.Apply(stored, types.MergePatchType, body, opts)
	if err != nil {
		panic(err)
	}
	patched := obj.(*corev1.ConfigMap)
	fmt.Println(patched.Data, patched.ResourceVersion)
	// Output: map[size:small] 41
}

// Strategic merge patch is not served for custom resources.
func ExampleApply_strategicMergePatchOnCustomResource() {
	stored := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "team-a", UID: "u1"}}
	opts := patch.Options{Strategic: false, GroupResource: schema.GroupResource{Group: "example.com", Resource: "widgets"}}

	_, err := patch.Apply(stored, types.StrategicMergePatchType, []byte(`{}`), opts)
	fmt.Println(apierrors.IsUnsupportedMediaType(err))
	fmt.Println(err)
	// Output:
	// true
	// the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml
}
