package differential

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// A Cluster is one side of a comparison: an API server that clients act on as a user.
type Cluster interface {
	// Client returns a client that acts as u.
	Client(u apiserver.User) (client.Client, error)
	// SettleRBAC returns once every RBAC write made so far decides authorization.
	// A real kube-apiserver authorizes from informer caches of the RBAC objects, so a
	// RoleBinding takes effect a little after its create returns; the model has no lag.
	SettleRBAC(ctx context.Context) error
}

// Scheme is the scheme both sides use: client-go's types and apiservertest.Widget.
var Scheme = apiservertest.Scheme()

// Model is the apiserver model behind kubeclient, fresh for each run.
type Model struct {
	Server *apiserver.Server
}

// NewModel returns a model with the default namespaces and the Widget CRD, as a fresh
// envtest has them.
func NewModel() *Model {
	s := apiserver.New(apiserver.Options{
		Scheme: Scheme, Clock: clock.New(clock.Epoch),
		CRDs: []apiserver.CRD{apiservertest.WidgetCRD},
		// envtest's --service-cluster-ip-range
		ServiceCIDR: "10.0.0.0/24",
	})
	s.CreateDefaultNamespaces()
	return &Model{Server: s}
}

// Client returns a kubeclient that reads from the server (no informer cache).
func (m *Model) Client(u apiserver.User) (client.Client, error) {
	return kubeclient.New(m.Server, u, kubeclient.Options{}), nil
}

// SettleRBAC does nothing: the model authorizes against the live objects.
func (m *Model) SettleRBAC(context.Context) error { return nil }

// Real is a kube-apiserver started by envtest, shared by every run of a test binary.
type Real struct {
	Env    *envtest.Environment
	Config *rest.Config
	// StartTime is how long envtest took to start (etcd, kube-apiserver, the CRD).
	StartTime time.Duration

	admin    client.Client
	mu       sync.Mutex
	clients  map[string]client.Client
	sentinel int
}

// sentinelNamespace holds the Role and RoleBinding SettleRBAC rewrites.
const sentinelNamespace = "ctrlsim-rbac-sentinel"

// StartReal starts envtest with the kube-apiserver and etcd in assets (a directory
// built by `make envtest-assets`), with RBAC authorization, and installs WidgetCRD.
//
// envtestenv.Start starts it (RBAC authorization set explicitly and checked
// against the running server, so that a change of envtest's default cannot turn
// the RBAC comparisons into AlwaysAllow).
func StartReal(assets string) (*Real, error) {
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme,
		Definitions: []*apiextensionsv1.CustomResourceDefinition{WidgetCRD()}})
	if err != nil {
		return nil, err
	}
	r := &Real{Env: env.Environment, Config: env.Config, StartTime: env.StartTime, admin: env.Admin, clients: map[string]client.Client{}}
	if err := r.setUpSentinel(context.Background()); err != nil {
		return nil, r.stopWith(err)
	}
	return r, nil
}

func (r *Real) stopWith(err error) error {
	if stopErr := r.Env.Stop(); stopErr != nil {
		return fmt.Errorf("%w (and stopping envtest: %v)", err, stopErr)
	}
	return err
}

// Stop stops envtest.
func (r *Real) Stop() error { return r.Env.Stop() }

// Client returns the envtest admin client (system:masters) for apiserver.Admin, and an
// impersonating client for any other user.
func (r *Real) Client(u apiserver.User) (client.Client, error) {
	if u.Name == apiserver.Admin.Name {
		return r.admin, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[u.Name]; ok {
		return c, nil
	}
	cfg := rest.CopyConfig(r.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: u.Name, Groups: u.Groups}
	c, err := client.New(cfg, client.Options{Scheme: Scheme, Mapper: r.admin.RESTMapper()})
	if err != nil {
		return nil, err
	}
	r.clients[u.Name] = c
	return c, nil
}

func (r *Real) setUpSentinel(ctx context.Context) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sentinelNamespace}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: sentinelNamespace, Name: "sentinel"}},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: sentinelNamespace, Name: "sentinel"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "sentinel"},
		},
	}
	for _, o := range objs {
		if err := r.admin.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the RBAC sentinel: %w", err)
		}
	}
	return r.SettleRBAC(ctx)
}

// SettleRBAC rewrites a sentinel Role (to grant a fresh resource) and RoleBinding (to
// a fresh user), then polls SubjectAccessReviews until that user is allowed. The
// authorizer's Role and RoleBinding informers deliver events in resourceVersion order,
// so once it sees both sentinel writes it has seen every RBAC write made before them.
func (r *Real) SettleRBAC(ctx context.Context) error {
	r.mu.Lock()
	r.sentinel++
	n := r.sentinel
	r.mu.Unlock()
	user, resource := fmt.Sprintf("sentinel-%d", n), fmt.Sprintf("sentinel%d", n)
	role := &rbacv1.Role{}
	if err := r.admin.Get(ctx, client.ObjectKey{Namespace: sentinelNamespace, Name: "sentinel"}, role); err != nil {
		return err
	}
	role.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{resource}, Verbs: []string{"get"}}}
	if err := r.admin.Update(ctx, role); err != nil {
		return err
	}
	rb := &rbacv1.RoleBinding{}
	if err := r.admin.Get(ctx, client.ObjectKey{Namespace: sentinelNamespace, Name: "sentinel"}, rb); err != nil {
		return err
	}
	rb.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	if err := r.admin.Update(ctx, rb); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: sentinelNamespace, Verb: "get", Resource: resource},
		}}
		if err := r.admin.Create(ctx, sar); err != nil {
			return err
		}
		if sar.Status.Allowed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("RBAC did not settle within 10s (sentinel %d)", n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// assetsFromEnv returns KUBEBUILDER_ASSETS, or why the envtest suites cannot run.
func assetsFromEnv() (string, error) {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		return "", fmt.Errorf("KUBEBUILDER_ASSETS is not set: run `make envtest-assets` and `make test-envtest`")
	}
	return dir, nil
}
