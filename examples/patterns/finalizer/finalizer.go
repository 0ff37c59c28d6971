package finalizer

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Bucket CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Bucket to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Bucket{}, &BucketList{}) }

// Finalizer holds a Bucket until the provider has forgotten it. The
// provider's record of a bucket is the ConfigMap Prefix+name, labelled
// ProviderLabel.
const (
	Finalizer     = "patterns.ctrlsim.dev/bucket-cleanup"
	Prefix        = "cloud-bucket-"
	ProviderLabel = "patterns.ctrlsim.dev/provider"
)

// Bucket is a storage bucket at an external provider.
type Bucket struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BucketSpec `json:"spec,omitempty"`
}

// BucketSpec is where the bucket lives.
type BucketSpec struct {
	Region string `json:"region"`
}

// BucketList is a list of Buckets.
type BucketList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Bucket `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Bucket) DeepCopyInto(out *Bucket) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Bucket.
func (in *Bucket) DeepCopyObject() runtime.Object {
	out := new(Bucket)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *BucketList) DeepCopyObject() runtime.Object {
	out := &BucketList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var b Bucket
		in.Items[i].DeepCopyInto(&b)
		out.Items = append(out.Items, b)
	}
	return out
}

// Reconciler registers Buckets with the provider and cleans up after them.
type Reconciler struct {
	client.Client
	// APIReader reads live from the apiserver (mgr.GetAPIReader()): the
	// provider's records are read as a provider's API is called, never from
	// a cache.
	APIReader client.Reader
	// Buggy removes the finalizer before the cleanup.
	Buggy bool
	// Past registers a Bucket its cache shows under the finalizer without
	// the live read (the operator as first written): restarted onto a
	// lagging apiserver, it registers a Bucket deleted since.
	Past bool
}

// SetupWithManager registers the controller: Buckets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&Bucket{}).Complete(r)
}

// Reconcile registers a Bucket (its finalizer first), or forgets a deleted
// one (its finalizer last).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b Bucket
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !b.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&b, Finalizer) {
			return ctrl.Result{}, nil
		}
		if r.Buggy { // the bug: the Bucket is gone before its cleanup is done
			controllerutil.RemoveFinalizer(&b, Finalizer)
			if err := r.Update(ctx, &b); err != nil {
				return ctrl.Result{}, err
			}
		}
		if err := r.forget(ctx, &b); err != nil {
			return ctrl.Result{}, err
		}
		if r.Buggy {
			return ctrl.Result{}, nil
		}
		controllerutil.RemoveFinalizer(&b, Finalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &b))
	}
	if controllerutil.AddFinalizer(&b, Finalizer) {
		if err := r.Update(ctx, &b); err != nil {
			return ctrl.Result{}, err
		}
	} else if !r.Past {
		// The cache may show the past (a restart onto a lagging apiserver
		// lists a Bucket deleted since): the provider is called only for a
		// Bucket the apiserver holds now, under the finalizer, as the update
		// above confirms when it adds the finalizer.
		var live Bucket
		if err := r.APIReader.Get(ctx, req.NamespacedName, &live); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if live.UID != b.UID || !live.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(&live, Finalizer) {
			return ctrl.Result{}, nil // the cache will show what changed, and its event brings the Bucket back
		}
		b = live
	}
	return ctrl.Result{}, r.register(ctx, &b)
}

// external is the provider's record of b's bucket.
func external(b *Bucket) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: Prefix + b.Name, Labels: map[string]string{ProviderLabel: "cloud"}}}
}

// register creates the bucket at the provider, or moves it to its region.
func (r *Reconciler) register(ctx context.Context, b *Bucket) error {
	cm := external(b)
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(cm), cm)
	if apierrors.IsNotFound(err) {
		cm.Data = map[string]string{"region": b.Spec.Region}
		return r.Create(ctx, cm)
	}
	if err != nil || cm.Data["region"] == b.Spec.Region {
		return err
	}
	cm.Data = map[string]string{"region": b.Spec.Region}
	return r.Update(ctx, cm)
}

// forget deletes the bucket at the provider.
func (r *Reconciler) forget(ctx context.Context, b *Bucket) error {
	return client.IgnoreNotFound(r.Delete(ctx, external(b)))
}
