package envtestenv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ctrlsim/ctrlsim/models/kube"
)

// Manager is a controller-runtime manager running in the background, as a
// controller's main() would run it, until Stop.
type Manager struct {
	ctrl.Manager
	cancel context.CancelFunc
	done   chan error
}

// ManagerOptions shape a manager beyond the Env's scheme.
type ManagerOptions struct {
	// As is the identity the manager acts as (impersonated); nil is the admin.
	As *User
	// Namespaces restricts the cache to these namespaces (cache.Options
	// DefaultNamespaces); nil watches every namespace.
	Namespaces []string
	// Logger is the manager's logger; the zero value is controller-runtime's
	// global logger (ctrl.Log).
	Logger logr.Logger
}

// StartManager builds a manager on the Env, lets setup register controllers
// (the controller's own SetupWithManager), and starts it. Metrics and health
// probes are off, there is no leader election, and controller names need not
// be unique in the process (several managers run the same controller in one
// test binary).
func (e *Env) StartManager(o ManagerOptions, setup func(ctrl.Manager) error) (*Manager, error) {
	cfg := e.Config
	if o.As != nil {
		cfg = e.ConfigAs(*o.As)
	}
	opts := ctrl.Options{
		Scheme:                 e.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Logger:                 o.Logger,
	}
	if len(o.Namespaces) > 0 {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range o.Namespaces {
			opts.Cache.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return startManager(cfg, opts, setup)
}

func startManager(cfg *rest.Config, opts ctrl.Options, setup func(ctrl.Manager) error) (*Manager, error) {
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("creating a manager: %w", err)
	}
	if err := setup(mgr); err != nil {
		return nil, fmt.Errorf("setting up the manager's controllers: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Manager: mgr, cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- mgr.Start(ctx) }()
	return m, nil
}

// Stop stops the manager, as SIGTERM does, and returns what Start returned. It
// waits for running reconciles to finish, up to the manager's graceful shutdown
// timeout (30s).
func (m *Manager) Stop() error {
	m.cancel()
	select {
	case err := <-m.done:
		return err
	case <-time.After(time.Minute):
		return errors.New("the manager did not stop within a minute")
	}
}

// NamespaceControllerOptions configure StartNamespaceController.
type NamespaceControllerOptions struct {
	// Content are the namespaced kinds the controller deletes (its discovery).
	Content []client.ObjectList
	// GracePeriod is the delay from a Namespace event to its sync; zero is
	// kube.DefaultGracePeriod (5s).
	GracePeriod time.Duration
	// Order arranges each pass of deletions (kube.NamespaceController.Order).
	Order  func([]client.Object)
	Logger logr.Logger
}

// StartNamespaceController runs models/kube's namespace controller in a manager
// of its own, as kube-controller-manager does (as the admin, real clock), with
// its own SetupWithManager. envtest runs no kube-controller-manager: without it
// a deleted Namespace stays Terminating forever.
func (e *Env) StartNamespaceController(o NamespaceControllerOptions) (*Manager, error) {
	return e.StartManager(ManagerOptions{Logger: o.Logger}, func(mgr ctrl.Manager) error {
		nc := &kube.NamespaceController{
			Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: clock.RealClock{},
			Content: o.Content, GracePeriod: o.GracePeriod, Order: o.Order,
		}
		return nc.SetupWithManager(mgr)
	})
}

// CreateNamespace creates a Namespace.
func CreateNamespace(ctx context.Context, c client.Client, name string) error {
	return c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// DeleteNamespace deletes a Namespace and waits until it is gone, that is until
// the namespace controller has deleted its content and finalized it. It fails
// after timeout with the Namespace's phase and conditions.
func DeleteNamespace(ctx context.Context, c client.Client, name string, timeout time.Duration) error {
	return DeleteNamespaces(ctx, c, timeout, name)
}

// DeleteNamespaces deletes Namespaces, then waits until they are all gone.
func DeleteNamespaces(ctx context.Context, c client.Client, timeout time.Duration, names ...string) error {
	for _, name := range names {
		if err := c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	deadline := time.Now().Add(timeout)
	for _, name := range names {
		for {
			var ns corev1.Namespace
			err := c.Get(ctx, client.ObjectKey{Name: name}, &ns)
			if apierrors.IsNotFound(err) {
				break
			}
			if err != nil {
				return err
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("namespace %s still %s after %s: %v", name, ns.Status.Phase, timeout, ns.Status.Conditions)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}
