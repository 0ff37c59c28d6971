package dependency

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Database CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Database to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Database{}, &DatabaseList{}) }

// Database is a database the cluster's apps connect to.
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DatabaseSpec   `json:"spec,omitempty"`
	Status            DatabaseStatus `json:"status,omitempty"`
}

// DatabaseSpec is where the database is and which Secret has its user.
type DatabaseSpec struct {
	Host              string `json:"host"`
	CredentialsSecret string `json:"credentialsSecret"`
}

// DatabaseStatus says whether the connection is published.
type DatabaseStatus struct {
	Ready   bool   `json:"ready,omitempty"`
	Message string `json:"message,omitempty"`
}

// DatabaseList is a list of Databases.
type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Database `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Database) DeepCopyInto(out *Database) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Database.
func (in *Database) DeepCopyObject() runtime.Object {
	out := new(Database)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *DatabaseList) DeepCopyObject() runtime.Object {
	out := &DatabaseList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var d Database
		in.Items[i].DeepCopyInto(&d)
		out.Items = append(out.Items, d)
	}
	return out
}

// Reconciler publishes each Database's connection.
type Reconciler struct {
	client.Client
	// Buggy gives up on a missing Secret and does not watch Secrets.
	Buggy bool
}

// SetupWithManager registers the controller: Databases, owned ConfigMaps,
// and the Secrets they name.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).For(&Database{}).Owns(&corev1.ConfigMap{})
	if !r.Buggy { // the bug: without this watch, a Secret's return goes unnoticed
		b = b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.databasesNaming))
	}
	return b.Complete(r)
}

// databasesNaming maps a Secret to the Databases of its namespace that name
// it.
func (r *Reconciler) databasesNaming(ctx context.Context, secret client.Object) []reconcile.Request {
	var dbs DatabaseList
	if err := r.List(ctx, &dbs, client.InNamespace(secret.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, db := range dbs.Items {
		if db.Spec.CredentialsSecret == secret.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&db)})
		}
	}
	return out
}

// Reconcile reads the Secret and publishes the connection; without the
// Secret it reports it and fails, to be retried.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var db Database
	if err := r.Get(ctx, req.NamespacedName, &db); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var secret corev1.Secret
	if err := r.Get(ctx, client.ObjectKey{Namespace: db.Namespace, Name: db.Spec.CredentialsSecret}, &secret); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		msg := fmt.Sprintf("Secret %s not found", db.Spec.CredentialsSecret)
		if err := r.setStatus(ctx, &db, false, msg); err != nil {
			return ctrl.Result{}, err
		}
		if r.Buggy {
			return ctrl.Result{}, nil // the bug: gives up until something else happens
		}
		return ctrl.Result{}, fmt.Errorf("%s: waiting for it", msg)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: db.Namespace, Name: db.Name + "-connection"}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"host": db.Spec.Host, "user": string(secret.Data["username"])}
		return controllerutil.SetControllerReference(&db, cm, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.setStatus(ctx, &db, true, "")
}

func (r *Reconciler) setStatus(ctx context.Context, db *Database, ready bool, msg string) error {
	if db.Status.Ready == ready && db.Status.Message == msg {
		return nil
	}
	db.Status.Ready, db.Status.Message = ready, msg
	return r.Status().Update(ctx, db)
}
