package leader

import (
	"context"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Certificate CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Certificate to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Certificate{}, &CertificateList{}) }

// CertificateLabel names, on a Secret, the Certificate it belongs to.
const CertificateLabel = "patterns.ctrlsim.dev/certificate"

// Certificate is a TLS certificate for a DNS name, kept in a Secret.
type Certificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CertificateSpec   `json:"spec,omitempty"`
	Status            CertificateStatus `json:"status,omitempty"`
}

// CertificateSpec is the name certified.
type CertificateSpec struct {
	DNSName string `json:"dnsName"`
}

// CertificateStatus names the Secret.
type CertificateStatus struct {
	SecretName string `json:"secretName,omitempty"`
}

// CertificateList is a list of Certificates.
type CertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Certificate `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Certificate) DeepCopyInto(out *Certificate) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Certificate.
func (in *Certificate) DeepCopyObject() runtime.Object {
	out := new(Certificate)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *CertificateList) DeepCopyObject() runtime.Object {
	out := &CertificateList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var c Certificate
		in.Items[i].DeepCopyInto(&c)
		out.Items = append(out.Items, c)
	}
	return out
}

// Reconciler keeps each Certificate's Secret.
type Reconciler struct {
	client.Client
	// APIReader reads live from the apiserver (mgr.GetAPIReader()).
	APIReader client.Reader
	// Buggy runs the controller on every replica, not only on the leader.
	Buggy bool
}

// SetupWithManager registers the controller: Certificates, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	var opts controller.Options
	if r.Buggy {
		opts.NeedLeaderElection = ptr.To(false) // the bug: every replica reconciles
	}
	return ctrl.NewControllerManagedBy(mgr).For(&Certificate{}).Owns(&corev1.Secret{}).WithOptions(opts).Complete(r)
}

// Reconcile finds the Certificate's Secret (creating it if there is none),
// keeps its certificate, and records its name.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cert Certificate
	if err := r.Get(ctx, req.NamespacedName, &cert); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var list corev1.SecretList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(cert.Namespace), client.MatchingLabels{CertificateLabel: cert.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var secrets []corev1.Secret
	for _, s := range list.Items {
		if metav1.IsControlledBy(&s, &cert) && s.DeletionTimestamp == nil {
			secrets = append(secrets, s)
		}
	}
	slices.SortFunc(secrets, func(a, b corev1.Secret) int { return strings.Compare(a.Name, b.Name) })
	pem := "-----BEGIN CERTIFICATE-----\n" + cert.Spec.DNSName + "\n-----END CERTIFICATE-----\n"
	var secret corev1.Secret
	if len(secrets) == 0 {
		secret = corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: cert.Namespace, GenerateName: cert.Name + "-tls-", Labels: map[string]string{CertificateLabel: cert.Name}},
			Type:       corev1.SecretTypeOpaque,
			StringData: map[string]string{"tls.crt": pem},
		}
		if err := controllerutil.SetControllerReference(&cert, &secret, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &secret); err != nil {
			return ctrl.Result{}, err
		}
	} else {
		secret = secrets[0]
		if string(secret.Data["tls.crt"]) != pem {
			secret.Data = map[string][]byte{"tls.crt": []byte(pem)}
			if err := r.Update(ctx, &secret); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	if cert.Status.SecretName == secret.Name {
		return ctrl.Result{}, nil
	}
	cert.Status.SecretName = secret.Name
	return ctrl.Result{}, r.Status().Update(ctx, &cert)
}
