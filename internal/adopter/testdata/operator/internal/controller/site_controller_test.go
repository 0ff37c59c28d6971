package controller

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webv1 "github.com/example/site-operator/api/v1"
)

var _ = Describe("Site Controller", func() {
	It("makes the site's ConfigMap and Secret and marks it ready", func() {
		ctx := context.Background()
		scheme := runtime.NewScheme()
		Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
		Expect(webv1.AddToScheme(scheme)).To(Succeed())
		site := &webv1.Site{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: webv1.SiteSpec{Domain: "shop.example.com"}}
		c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(site).WithStatusSubresource(site).Build()
		r := &SiteReconciler{Client: c, Scheme: scheme}

		_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}})
		Expect(err).NotTo(HaveOccurred())

		var cm corev1.ConfigMap
		Expect(c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web-config"}, &cm)).To(Succeed())
		Expect(cm.Data).To(HaveKeyWithValue("domain", "shop.example.com"))
		var secret corev1.Secret
		Expect(c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web-credentials"}, &secret)).To(Succeed())
		var got webv1.Site
		Expect(c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &got)).To(Succeed())
		Expect(got.Status.Ready).To(BeTrue())
	})
})
