package banner_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/banner"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := banner.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// published: at rest every Banner, read in v1alpha1 as its user wrote it,
// has its text in its ConfigMap.
var published = operatortest.Property{Name: "banner-published", Check: func(h *operatortest.History) error {
	var banners banner.BannerV1alpha1List
	if err := h.List(&banners); err != nil {
		return err
	}
	for _, b := range banners.Items {
		var cm corev1.ConfigMap
		if err := h.Get(client.ObjectKey{Namespace: b.Namespace, Name: b.Name + "-banner"}, &cm); err != nil {
			return fmt.Errorf("Banner %s/%s: %v", b.Namespace, b.Name, err)
		}
		if got := cm.Data[banner.Key]; got != b.Spec.Text {
			return fmt.Errorf("Banner %s/%s says %q; its ConfigMap holds %q", b.Namespace, b.Name, b.Spec.Text, got)
		}
	}
	return nil
}}

// The controller works on v1 while the user's Banner is written in
// v1alpha1: the seed is created in v1alpha1 and stored in v1 through the
// operator's conversion webhook, the workload edits, deletes and re-creates
// it in v1alpha1, and the operator holds under the generic oracles and
// banner-published with default Options (its crashes take the webhook down
// with it).
func TestTheControllerOnV1ServesBannersWrittenInV1alpha1(t *testing.T) {
	seed := &banner.BannerV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "sale"},
		Spec: banner.BannerV1alpha1Spec{Text: "everything\nmust go"}}
	operatortest.Run(t, operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{banner.CRD},
		Managers: []operatortest.Manager{{Name: "banner", Setup: func(mgr manager.Manager) error {
			return (&banner.Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
		}}},
		Objects:    []client.Object{seed},
		Properties: []operatortest.Property{published},
	})
}
