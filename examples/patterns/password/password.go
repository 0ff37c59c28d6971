package password

import (
	"context"
	"crypto/rand"

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

// CRD is the User CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds User to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&User{}, &UserList{}) }

// User is a database user whose credentials live in a Secret.
type User struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              UserSpec `json:"spec,omitempty"`
}

// UserSpec is the user's name.
type UserSpec struct {
	Username string `json:"username"`
}

// UserList is a list of Users.
type UserList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []User `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *User) DeepCopyInto(out *User) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the User.
func (in *User) DeepCopyObject() runtime.Object {
	out := new(User)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *UserList) DeepCopyObject() runtime.Object {
	out := &UserList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var u User
		in.Items[i].DeepCopyInto(&u)
		out.Items = append(out.Items, u)
	}
	return out
}

// Reconciler keeps each User's credentials Secret.
type Reconciler struct {
	client.Client
	// Buggy draws and writes a new password at every reconcile.
	Buggy bool
}

// SetupWithManager registers the controller: Users, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&User{}).Owns(&corev1.Secret{}).Complete(r)
}

// Reconcile creates the Secret with a new password, or keeps its username.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var user User
	if err := r.Get(ctx, req.NamespacedName, &user); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var secret corev1.Secret
	err := r.Get(ctx, client.ObjectKey{Namespace: user.Namespace, Name: user.Name + "-credentials"}, &secret)
	if apierrors.IsNotFound(err) {
		secret = corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: user.Namespace, Name: user.Name + "-credentials"},
			Type:       corev1.SecretTypeBasicAuth,
			Data:       map[string][]byte{corev1.BasicAuthUsernameKey: []byte(user.Spec.Username), corev1.BasicAuthPasswordKey: []byte(rand.Text())},
		}
		if err := controllerutil.SetControllerReference(&user, &secret, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &secret); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err // AlreadyExists: the cache is behind; the Secret's event brings it back here
		}
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	changed := string(secret.Data[corev1.BasicAuthUsernameKey]) != user.Spec.Username
	if r.Buggy {
		secret.Data[corev1.BasicAuthPasswordKey], changed = []byte(rand.Text()), true // the bug: a new password every time
	}
	if !changed {
		return ctrl.Result{}, nil
	}
	secret.Data[corev1.BasicAuthUsernameKey] = []byte(user.Spec.Username)
	return ctrl.Result{}, r.Update(ctx, &secret)
}
