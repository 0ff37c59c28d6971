package keypair

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"time"

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

// CRD is the KeyPair CustomResourceDefinition.
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the API group of the pattern operators.
	GroupVersion  = schema.GroupVersion{Group: "patterns.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds KeyPair to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&KeyPair{}, &KeyPairList{}) }

// KeyPair is a private key and a self-signed certificate for a common
// name, kept in a Secret.
type KeyPair struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              KeyPairSpec   `json:"spec,omitempty"`
	Status            KeyPairStatus `json:"status,omitempty"`
}

// KeyPairSpec is the certificate's subject.
type KeyPairSpec struct {
	CommonName string `json:"commonName"`
}

// KeyPairStatus records the certificate issued and its request.
type KeyPairStatus struct {
	CommonName string `json:"commonName,omitempty"`
	Request    string `json:"request,omitempty"`
}

// KeyPairList is a list of KeyPairs.
type KeyPairList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KeyPair `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *KeyPair) DeepCopyInto(out *KeyPair) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the KeyPair.
func (in *KeyPair) DeepCopyObject() runtime.Object {
	out := new(KeyPair)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *KeyPairList) DeepCopyObject() runtime.Object {
	out := &KeyPairList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var k KeyPair
		in.Items[i].DeepCopyInto(&k)
		out.Items = append(out.Items, k)
	}
	return out
}

// Reconciler keeps each KeyPair's Secret.
type Reconciler struct {
	client.Client
	// Buggy issues a new key and certificate at every reconcile.
	Buggy bool
}

// SetupWithManager registers the controller: KeyPairs, owned Secrets.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&KeyPair{}).Owns(&corev1.Secret{}).Complete(r)
}

// requestFor labels a request Secret with its KeyPair's name.
const requestFor = "patterns.ctrlsim.dev/request-for"

// commonNameKey and requestKey are the Secret's record of the
// certificate's common name (a data key) and of the request that issued it
// (an annotation).
const commonNameKey, requestKey = "common-name", "patterns.ctrlsim.dev/request"

// Reconcile issues a certificate when the Secret holds none for the
// KeyPair's common name: a request Secret of generated name, the key and
// certificate into the Secret, the request deleted, then the status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var kp KeyPair
	if err := r.Get(ctx, req.NamespacedName, &kp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if kp.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: kp.Namespace, Name: kp.Name + "-tls"}}
	err := r.Get(ctx, client.ObjectKeyFromObject(secret), secret)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	if err == nil && string(secret.Data[commonNameKey]) == kp.Spec.CommonName && !r.Buggy {
		// Issued: a request left by an incarnation that died before it
		// deleted it goes now, and the status follows the Secret.
		return ctrl.Result{}, r.issued(ctx, &kp, secret)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ctrl.Result{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return ctrl.Result{}, err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	request := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: kp.Namespace, GenerateName: kp.Name + "-request-", Labels: map[string]string{requestFor: kp.Name}},
		Data: map[string][]byte{corev1.TLSPrivateKeyKey: keyPEM, commonNameKey: []byte(kp.Spec.CommonName)}}
	if err := controllerutil.SetControllerReference(&kp, request, r.Scheme()); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Create(ctx, request); err != nil {
		return ctrl.Result{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return ctrl.Result{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: kp.Spec.CommonName},
		NotBefore: now, NotAfter: now.Add(90 * 24 * time.Hour), DNSNames: []string{kp.Spec.CommonName}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return ctrl.Result{}, err
	}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, secret, func() error {
		secret.Type = corev1.SecretTypeTLS
		secret.Data = map[string][]byte{corev1.TLSPrivateKeyKey: keyPEM, corev1.TLSCertKey: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			commonNameKey: []byte(kp.Spec.CommonName)}
		metav1.SetMetaDataAnnotation(&secret.ObjectMeta, requestKey, request.Name)
		return controllerutil.SetControllerReference(&kp, secret, r.Scheme())
	}); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.issued(ctx, &kp, secret)
}

// issued deletes the KeyPair's requests and records in its status what
// the Secret holds.
func (r *Reconciler) issued(ctx context.Context, kp *KeyPair, secret *corev1.Secret) error {
	if err := r.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(kp.Namespace), client.MatchingLabels{requestFor: kp.Name}); err != nil {
		return err
	}
	cn, req := string(secret.Data[commonNameKey]), secret.Annotations[requestKey]
	if kp.Status.CommonName == cn && kp.Status.Request == req {
		return nil
	}
	kp.Status.CommonName, kp.Status.Request = cn, req
	return r.Status().Update(ctx, kp)
}
