package envtestenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ErrNoAssets is why envtest cannot start: KUBEBUILDER_ASSETS is not set.
var ErrNoAssets = errors.New("KUBEBUILDER_ASSETS is not set: run `make envtest-assets`, then `make test` " +
	"(or KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh --print-dir) go test ...)")

// Assets returns the directory with kube-apiserver and etcd (KUBEBUILDER_ASSETS),
// or ErrNoAssets.
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	return "", ErrNoAssets
}

// TB is the part of testing.TB that Require uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Require returns the envtest assets directory for a test that needs a real API
// server. Without KUBEBUILDER_ASSETS the test is skipped with a message saying
// how to run it, except under CI=true, where it fails: CI must not pass by
// skipping.
func Require(t TB) string {
	t.Helper()
	dir, err := Assets()
	if err == nil {
		return dir
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("envtest is required under CI=true: %v", err)
	}
	t.Skipf("skipping the envtest suite: %v", err)
	return ""
}

// Env is a running envtest: etcd and kube-apiserver with RBAC authorization and
// the custom resources installed.
type Env struct {
	Environment *envtest.Environment
	// Config authenticates as envtest's admin (group system:masters).
	Config *rest.Config
	Scheme *runtime.Scheme
	// Admin is a client acting as the admin, reading the API server directly.
	Admin client.Client
	// StartTime is how long etcd, kube-apiserver and the CRDs took to be ready.
	StartTime time.Duration
}

// Options configure Start.
type Options struct {
	// Scheme types every client and manager of the Env (client-go's types and
	// those of the CRDs).
	Scheme *runtime.Scheme
	// CRDs are installed, and served, before Start returns.
	CRDs []CRD
	// Definitions are installed as they are (a manifest read from YAML, say),
	// after CRDs.
	Definitions []*apiextensionsv1.CustomResourceDefinition
}

// Start starts envtest with the binaries in assets and RBAC authorization
// (checked with a SubjectAccessReview), and installs o.CRDs.
func Start(assets string, o Options) (*Env, error) {
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDs:                  append(Definitions(o.CRDs...), o.Definitions...),
		Scheme:                o.Scheme,
		ErrorIfCRDPathMissing: true,
	}
	// envtest's default (pkg/internal/testing/controlplane/apiserver.go), set
	// explicitly so that a change of default cannot turn RBAC off unnoticed.
	env.ControlPlane.GetAPIServer().Configure().Set("authorization-mode", "RBAC")
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest with the binaries in %s: %w", assets, err)
	}
	e := &Env{Environment: env, Config: cfg, Scheme: o.Scheme, StartTime: time.Since(start)}
	if e.Admin, err = client.New(cfg, client.Options{Scheme: o.Scheme}); err != nil {
		return nil, e.stopWith(err)
	}
	if err := e.checkRBAC(context.Background()); err != nil {
		return nil, e.stopWith(err)
	}
	return e, nil
}

func (e *Env) stopWith(err error) error {
	if stopErr := e.Environment.Stop(); stopErr != nil {
		return fmt.Errorf("%w (and stopping envtest: %v)", err, stopErr)
	}
	return err
}

// Stop stops kube-apiserver and etcd.
func (e *Env) Stop() error { return e.Environment.Stop() }

func (e *Env) checkRBAC(ctx context.Context) error {
	allowed, err := e.Allowed(ctx, ServiceAccountUser("default", "nobody"), authorizationv1.ResourceAttributes{
		Namespace: "default", Verb: "get", Resource: "configmaps"})
	if err != nil {
		return fmt.Errorf("checking RBAC: %w", err)
	}
	if allowed {
		return errors.New("envtest's kube-apiserver does not enforce RBAC: a ServiceAccount without bindings may get configmaps")
	}
	return nil
}

// User is an identity to impersonate.
type User struct {
	Name   string
	Groups []string
}

// ServiceAccountUser is the user a ServiceAccount's token authenticates as, with
// its groups (k8s.io/apiserver/pkg/authentication/serviceaccount MakeUsername,
// MakeGroupNames, and system:authenticated).
func ServiceAccountUser(namespace, name string) User {
	return User{
		Name:   "system:serviceaccount:" + namespace + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
}

// ConfigAs is the admin's config impersonating u: requests are authorized as u.
func (e *Env) ConfigAs(u User) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: u.Name, Groups: u.Groups}
	return cfg
}

// Allowed asks the authorizer whether u may do attrs (a SubjectAccessReview).
func (e *Env) Allowed(ctx context.Context, u User, attrs authorizationv1.ResourceAttributes) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: u.Name, Groups: u.Groups, ResourceAttributes: &attrs}}
	if err := e.Admin.Create(ctx, sar); err != nil {
		return false, err
	}
	return sar.Status.Allowed, nil
}

// WaitAllowed polls Allowed until u may do attrs. kube-apiserver authorizes from
// informer caches of the RBAC objects, so a binding takes effect a little after
// its create returns.
func (e *Env) WaitAllowed(ctx context.Context, u User, attrs authorizationv1.ResourceAttributes, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := e.Allowed(ctx, u, attrs)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is still not allowed to %s %s in %q after %s", u.Name, attrs.Verb, attrs.Resource, attrs.Namespace, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
