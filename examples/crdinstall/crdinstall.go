package crdinstall

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// GadgetGVR is the resource of the kind the operator defines at run time.
var GadgetGVR = schema.GroupVersionResource{Group: "platform.example.com", Version: "v1", Resource: "gadgets"}

// GadgetGVK is its kind.
var GadgetGVK = GadgetGVR.GroupVersion().WithKind("Gadget")

// CRDName is the name of the CustomResourceDefinition the operator installs.
const CRDName = "gadgets.platform.example.com"

// Namespace holds the default Gadget the operator creates.
const Namespace = "platform"

// Definition is the CRD the operator installs: Gadget, namespaced, with a
// size defaulted to 1.
func Definition() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: CRDName},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: GadgetGVR.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: ptrFloat(1), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						}},
					},
				}},
			}},
		},
	}
}

func ptrFloat(f float64) *float64 { return &f }

// Installer is the operator's start-up Runnable, as a platform operator's
// main.go runs one: it installs the Gadget CRD through the apiextensions
// clientset (mgr.GetConfig()), waits until the CRD is Established, creates
// the default Gadget through the dynamic client, and only then starts the
// Gadget controller (a controller added at run time).
type Installer struct {
	Mgr manager.Manager
	// Wait is the fix: without it the installer uses the kind as soon as its
	// CRD is created, before kube-apiserver serves it, and the operator exits.
	Wait bool
}

// Start installs, then starts the controller.
func (in *Installer) Start(ctx context.Context) error {
	cfg := in.Mgr.GetConfig()
	ax, err := apiextensionsclientset.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crds := ax.ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Create(ctx, Definition(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("installing %s: %w", CRDName, err)
	}
	if in.Wait {
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			crd, err := crds.Get(ctx, CRDName, metav1.GetOptions{})
			if err != nil {
				return false, nil // retried: a transient error of the API
			}
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for %s to be established: %w", CRDName, err)
		}
	}
	def := &unstructured.Unstructured{}
	def.SetGroupVersionKind(GadgetGVK)
	def.SetNamespace(Namespace)
	def.SetName("default")
	if _, err := dyn.Resource(GadgetGVR).Namespace(Namespace).Create(ctx, def, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the default Gadget: %w", err)
	}
	return (&GadgetReconciler{Client: in.Mgr.GetClient()}).SetupWithManager(in.Mgr)
}

// GadgetReconciler keeps a ConfigMap gadget-<name> with the Gadget's size.
type GadgetReconciler struct{ Client client.Client }

// Reconcile writes the Gadget's ConfigMap.
func (r *GadgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	g := &unstructured.Unstructured{}
	g.SetGroupVersionKind(GadgetGVK)
	if err := r.Client.Get(ctx, req.NamespacedName, g); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if g.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	size, _, _ := unstructured.NestedInt64(g.Object, "spec", "size")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "gadget-" + req.Name}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"size": fmt.Sprint(size)}
		return controllerutil.SetControllerReference(g, cm, r.Client.Scheme())
	})
	return ctrl.Result{}, err
}

// SetupWithManager starts the Gadget controller.
func (r *GadgetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	g := &unstructured.Unstructured{}
	g.SetGroupVersionKind(GadgetGVK)
	return ctrl.NewControllerManagedBy(mgr).Named("gadget").For(g).Owns(&corev1.ConfigMap{}).Complete(r)
}

// SetupInMain is the other common shape: main.go installs the CRD through the
// clientset before it registers the controller for its kind, and does not
// wait. controller-runtime's Kind source retries the kind every 10 s until
// the CRD is established (within its 2-minute CacheSyncTimeout), so the
// controller starts a little later and works.
func SetupInMain(mgr manager.Manager) error {
	ax, err := apiextensionsclientset.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	if _, err := ax.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), Definition(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return (&GadgetReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
}
