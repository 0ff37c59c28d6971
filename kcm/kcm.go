package kcm

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/certificates/rootcacertpublisher"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/serviceaccount"
	"k8s.io/kubernetes/pkg/controller/statefulset"
	"k8s.io/kubernetes/pkg/controller/volume/pvcprotection"
	"k8s.io/kubernetes/pkg/controller/volume/pvprotection"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// Names of the hosted controllers, as kube-controller-manager's --controllers
// flag names them.
const (
	ReplicaSet    = "replicaset-controller"
	Deployment    = "deployment-controller"
	Job           = "job-controller"
	StatefulSet   = "statefulset-controller"
	PVCProtection = "persistentvolumeclaim-protection-controller"
	PVProtection  = "persistentvolume-protection-controller"
	// ServiceAccount and RootCACertPublisher put the default ServiceAccount
	// and the kube-root-ca.crt ConfigMap into every namespace.
	ServiceAccount      = "serviceaccount-controller"
	RootCACertPublisher = "root-ca-certificate-publisher-controller"
)

// Controller is one of kube-controller-manager's controllers that Setup hosts:
// its name, the kinds its informers watch (Triggers: a world none of whose
// objects is of these kinds gives it nothing to do), and how
// kube-controller-manager builds it (pkg/controller's constructor, with the
// workers its flags default to).
type Controller struct {
	Name     string
	Triggers []schema.GroupKind
	build    func(ctx context.Context, h *host) (run func(context.Context), err error)
}

var (
	claimKind       = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	volumeKind      = schema.GroupKind{Kind: "PersistentVolume"}
	replicaSetKind  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	jobKind         = schema.GroupKind{Group: "batch", Kind: "Job"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	namespaceKind   = schema.GroupKind{Kind: "Namespace"}
)

// Controllers are the controllers Setup can host, in the order it starts
// them.
func Controllers() []Controller {
	return []Controller{
		// A pod alone gives it nothing to do: it acts for ReplicaSets (an
		// orphan pod is claimed by a set that selects it).
		{Name: ReplicaSet, Triggers: []schema.GroupKind{replicaSetKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newReplicaSetController (cmd/kube-controller-manager/app/apps.go):
			// burst replicaset.BurstReplicas, --concurrent-replicaset-syncs 5.
			f := h.factory
			c := replicaset.NewReplicaSetController(ctx, f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), h.clientset, replicaset.BurstReplicas)
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			return func(ctx context.Context) { c.Run(ctx, 5) }, nil
		}},
		// It acts for Deployments only: a ReplicaSet or pod with no
		// Deployment gives it nothing to do.
		{Name: Deployment, Triggers: []schema.GroupKind{deploymentKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newDeploymentController (cmd/kube-controller-manager/app/apps.go):
			// --concurrent-deployment-syncs 5.
			f := h.factory
			c, err := deployment.NewDeploymentController(ctx, f.Apps().V1().Deployments(), f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), h.clientset)
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			return func(ctx context.Context) { c.Run(ctx, 5) }, nil
		}},
		// It acts for Jobs (an orphan pod with the job-tracking finalizer, its
		// Job gone, is released too: only in a world that held Jobs).
		{Name: Job, Triggers: []schema.GroupKind{jobKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newJobController (cmd/kube-controller-manager/app/batch.go):
			// without the WorkloadWithJob gate (alpha), --concurrent-job-syncs 5.
			f := h.factory
			c, err := job.NewController(ctx, h.clientset, f.Core().V1().Pods(), f.Batch().V1().Jobs(), nil, nil)
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			// orphanQueue's item type is unexported (orphanPodKey): no
			// queue of the simulator's can be built for it from outside the
			// package, so it stays client-go's, on the bubble's clock (the
			// census of the bubble's goroutines is told: not the operator's).
			wallclock.SimulatorQueue()
			return func(ctx context.Context) { c.Run(ctx, 5) }, nil
		}},
		// A pod alone gives it nothing to do: it acts for StatefulSets (an
		// orphan pod is claimed by a set that selects it).
		{Name: StatefulSet, Triggers: []schema.GroupKind{statefulSetKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// startStatefulSetController (cmd/kube-controller-manager/app/apps.go):
			// --concurrent-statefulset-syncs 5.
			f := h.factory
			c := statefulset.NewStatefulSetController(ctx, f.Core().V1().Pods(), f.Apps().V1().StatefulSets(),
				f.Core().V1().PersistentVolumeClaims(), f.Apps().V1().ControllerRevisions(), h.clientset)
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			return func(ctx context.Context) { c.Run(ctx, 5) }, nil
		}},
		{Name: PVCProtection, Triggers: []schema.GroupKind{claimKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// startPersistentVolumeClaimProtectionController
			// (cmd/kube-controller-manager/app/core.go): one worker
			// (--concurrent-pvc-protection-syncs... is not a flag: Run(ctx, 1)).
			f := h.factory
			c, err := pvcprotection.NewPVCProtectionController(klog.FromContext(ctx), f.Core().V1().PersistentVolumeClaims(), f.Core().V1().Pods(), h.clientset)
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			if err := simPlainQueue[string](h, c, "pvcProcessingStore", "namespaceQueue"); err != nil {
				return nil, err
			}
			// kube-apiserver's admission plugin that gives claims the
			// finalizer this controller removes.
			process.EnableStorageObjectInUseProtection(h.mgr)
			return func(ctx context.Context) { c.Run(ctx, 1) }, nil
		}},
		{Name: PVProtection, Triggers: []schema.GroupKind{volumeKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newPersistentVolumeProtectionController
			// (cmd/kube-controller-manager/app/core.go): one worker. It removes
			// kubernetes.io/pv-protection (the same admission plugin gives it
			// every PersistentVolume) from a deleting volume that is not
			// Bound.
			c, err := pvprotection.NewPVProtectionController(klog.FromContext(ctx), h.factory.Core().V1().PersistentVolumes(), h.clientset)
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			process.EnableStorageObjectInUseProtection(h.mgr)
			return func(ctx context.Context) { c.Run(ctx, 1) }, nil
		}},
		// Every namespace has a default ServiceAccount: created when the
		// namespace is, and again when it is deleted.
		{Name: ServiceAccount, Triggers: []schema.GroupKind{namespaceKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newServiceAccountsController (cmd/kube-controller-manager/app/core.go):
			// DefaultServiceAccountsControllerOptions, one worker.
			c, err := newServiceAccounts(ctx, h.factory, h.clientset)
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			return func(ctx context.Context) { c.Run(ctx, 1) }, nil
		}},
		// Every namespace has the kube-root-ca.crt ConfigMap: created when
		// the namespace is, again when it is deleted, restored when edited.
		{Name: RootCACertPublisher, Triggers: []schema.GroupKind{namespaceKind}, build: func(ctx context.Context, h *host) (func(context.Context), error) {
			// newRootCACertificatePublisherController
			// (cmd/kube-controller-manager/app/certificates.go): the
			// apiserver's CA from the client config, one worker.
			c, err := newPublisher(h.factory, h.clientset, h.mgr.GetConfig())
			if err != nil {
				return nil, err
			}
			if err := simQueue[string](h, c, "queue"); err != nil {
				return nil, err
			}
			return func(ctx context.Context) { c.Run(ctx, 1) }, nil
		}},
	}
}

// newServiceAccounts is the serviceaccount controller as
// newServiceAccountsController (cmd/kube-controller-manager/app/core.go)
// builds it: DefaultServiceAccountsControllerOptions.
func newServiceAccounts(ctx context.Context, f informers.SharedInformerFactory, cs kubernetes.Interface) (*serviceaccount.ServiceAccountsController, error) {
	return serviceaccount.NewServiceAccountsController(klog.FromContext(ctx), f.Core().V1().ServiceAccounts(), f.Core().V1().Namespaces(),
		cs, serviceaccount.DefaultServiceAccountsControllerOptions())
}

// newPublisher is the root CA publisher as
// newRootCACertificatePublisherController
// (cmd/kube-controller-manager/app/certificates.go) builds it: the
// apiserver's CA from the client config cfg, else RootCA.
func newPublisher(f informers.SharedInformerFactory, cs kubernetes.Interface, cfg *rest.Config) (*rootcacertpublisher.Publisher, error) {
	ca := cfg.CAData
	if len(ca) == 0 {
		ca = []byte(RootCA)
	}
	return rootcacertpublisher.NewPublisher(f.Core().V1().ConfigMaps(), f.Core().V1().Namespaces(), cs, ca)
}

// RootCA is the cluster's CA certificate the root CA publisher writes into
// every namespace's kube-root-ca.crt ConfigMap (its ca.crt), where the
// process's REST config has none (the simulated apiserver serves no TLS): a
// self-signed certificate for CN kubernetes, as kubeadm's CA is, the same in
// every run.
const RootCA = `-----BEGIN CERTIFICATE-----
MIIBazCCARKgAwIBAgIBATAKBggqhkjOPQQDAjAVMRMwEQYDVQQDDAprdWJlcm5l
dGVzMB4XDTI2MTEyODAxMjQzMFoXDTM2MTEyNTAxMjQzMFowFTETMBEGA1UEAwwK
a3ViZXJuZXRlczBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABKOxd0z/yUAaVV3n
uj6wKqSXgzboK8Lkx2CPiDJXP1zPL6idDSfqkhoy/hSX3I+nz5NEBswxFKPRBQ+S
hOFMAC6jUzBRMB0GA1UdDgQWBBSCRF9gy7n335p02dYzfaVorGUsgjAfBgNVHSME
GDAWgBSCRF9gy7n335p02dYzfaVorGUsgjAPBgNVHRMBAf8EBTADAQH/MAoGCCqG
SM49BAMCA0cAMEQCIHyja1ADd8aPik5djfoHyo70MjLbVM3RLEsTTBwbEPETAiBQ
NYNIcqTKv5NaCAlHPwCuBoWYxlJ9ct8+sjA6qIwNIg==
-----END CERTIFICATE-----
`

// host is what the hosted controllers of one incarnation share, as
// kube-controller-manager's ControllerContext: one clientset and one informer
// factory.
type host struct {
	mgr         manager.Manager
	incarnation context.Context
	clientset   kubernetes.Interface
	factory     informers.SharedInformerFactory
	// current is the controller being built: simQueue names its queue
	// after it (process.NameQueue).
	current Controller
}

// Setup hosts in p (the kube-controller-manager process) the controllers of
// Controllers that want says it runs (nil: all), as kube-controller-manager
// does: at each start of the process, a clientset on its REST config and
// one informer factory (process.NewInformerFactory: started informer type by
// informer type, each one's goroutines tasks of the process), each
// controller built by its own constructor, then the factory started and each
// controller's Run as a Runnable of the process. Each workqueue a
// constructor builds (client-go's, on the wall clock, its goroutines outside
// the scheduler) is shut down and replaced by the simulator's
// (process.NewClientGoQueue, with client-go's default controller rate
// limiter, as the constructors use). It needs a testing/synctest bubble
// (package wallclock): Available says whether p is in one.
func Setup(p *process.Process, want func(Controller) bool) error {
	mgr := p.Manager()
	if !process.InBubble(mgr) {
		return fmt.Errorf("kcm: process %s: kube-controller-manager's controllers need a testing/synctest bubble (package wallclock)", p.Name())
	}
	process.DropErrorBackoff()
	incarnation, err := process.IncarnationContext(mgr)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("kcm: clientset: %w", err)
	}
	// running is the controllers' context: it ends with the incarnation (a
	// crash, a stop: a child of its context ends with it, in the kernel) or
	// when the world closes, first thing (the Runnable below), so that the
	// controllers' goroutines stop calling in before the scheduler is gone.
	running, stop := context.WithCancel(incarnation)
	h := &host{mgr: mgr, incarnation: running, clientset: cs, factory: process.NewInformerFactory(mgr, cs)}
	var runs []func(context.Context)
	for _, c := range Controllers() {
		if want != nil && !want(c) {
			continue
		}
		h.current = c
		ctx := klog.NewContext(running, logr.New(untilEnded{klog.Background().GetSink(), running}).WithName(c.Name))
		run, err := c.build(ctx, h)
		if err != nil {
			stop()
			return fmt.Errorf("kcm: %s: %w", c.Name, err)
		}
		// Run gets the controller's context (its logger, named), as
		// kube-controller-manager's StartControllers gives it: its lines once
		// the incarnation ended ("Shutting down job controller", deferred)
		// are dropped rather than reach the process's logger, which would
		// call in from a goroutine of an ended incarnation and freeze it
		// before its remaining deferred calls (the Job controller's
		// orphanQueue.ShutDown).
		runs = append(runs, func(context.Context) { run(ctx) })
	}
	if len(runs) == 0 {
		stop()
		return nil
	}
	// One Runnable starts the informers, then each controller's Run in a
	// goroutine of its own, as kube-controller-manager's StartControllers
	// does (go ctrl.Run(ctx, workers)): each joins the process before it
	// runs (a task, numbered in this order), and runs until running ends.
	// The Runnable then waits on its own context, which the scheduler ends
	// first when the world closes (before it unwinds the controllers'
	// workers): it ends running. Run's deferred ShutDown then does not call
	// in, and its wg.Wait returns once the workers are unwound.
	err = mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		// running, not a context that follows the incarnation through
		// context.AfterFunc: that would end it from a goroutine of its own,
		// at a moment Go chooses, and the old incarnation's goroutines would
		// wake (and reach the simulator, frozen) at a different step of the
		// restart in each run.
		h.factory.Start(running.Done())
		for _, run := range runs {
			go func() {
				process.Join(mgr)
				run(running)
			}()
			process.AdoptStarted(mgr)
		}
		<-ctx.Done()
		stop()
		return nil
	}))
	if err != nil {
		stop()
	}
	return err
}

// Available reports whether Setup can host controllers in p (it runs in a
// testing/synctest bubble).
func Available(p *process.Process) bool { return process.InBubble(p.Manager()) }

// Triggered is the want of Setup for a world that may hold only the kinds
// holds says: the controllers one of whose Triggers it holds.
func Triggered(holds func(schema.GroupKind) bool) func(Controller) bool {
	return func(c Controller) bool { return slices.ContainsFunc(c.Triggers, holds) }
}

// simQueue replaces the client-go workqueue at the path of unexported
// fields in the controller c points to (a pointer field on the way is
// followed) by the simulator's, with the rate limiter the constructor gave
// it, and shuts the replaced one down (its goroutines return).
// pkg/controller has no seam for the queue: its constructors build it.
func simQueue[T comparable](h *host, c any, path ...string) error {
	v, err := field(reflect.ValueOf(c), path...)
	if err != nil {
		return fmt.Errorf("queue %v: %w", path, err)
	}
	old, ok := v.Interface().(workqueue.TypedRateLimitingInterface[T])
	if !ok || old == nil {
		return fmt.Errorf("queue %v: a %s, not a rate-limiting workqueue", path, v.Type())
	}
	limiter, err := field(reflect.ValueOf(old), "rateLimiter")
	if err != nil {
		return fmt.Errorf("queue %v: client-go's rate-limiting queue: %w", path, err)
	}
	rl, ok := limiter.Interface().(workqueue.TypedRateLimiter[T])
	if !ok {
		return fmt.Errorf("queue %v: its rate limiter is a %s", path, limiter.Type())
	}
	sq, err := process.NewClientGoQueue(h.mgr, rl)
	if err != nil {
		return err
	}
	q := &queue[T]{TypedRateLimitingInterface: sq, incarnation: h.incarnation}
	if !reflect.TypeOf(q).AssignableTo(v.Type()) {
		return fmt.Errorf("queue %v: the simulator's queue is no %s", path, v.Type())
	}
	if len(h.current.Triggers) > 0 { // its keys are objects of the kind it acts for
		if err := process.NameQueue(sq, h.current.Name, h.current.Triggers[0]); err != nil {
			return err
		}
	}
	v.Set(reflect.ValueOf(q))
	old.ShutDown()
	return nil
}

// simPlainQueue is simQueue for a queue without rate limiting
// (workqueue.NewTyped), which gets the simulator's rate-limiting one (whose
// limiter it never calls).
func simPlainQueue[T comparable](h *host, c any, path ...string) error {
	v, err := field(reflect.ValueOf(c), path...)
	if err != nil {
		return fmt.Errorf("queue %v: %w", path, err)
	}
	old, ok := v.Interface().(workqueue.TypedInterface[T])
	if !ok || old == nil {
		return fmt.Errorf("queue %v: a %s, not a workqueue", path, v.Type())
	}
	sq, err := process.NewClientGoQueue[T](h.mgr, nil)
	if err != nil {
		return err
	}
	v.Set(reflect.ValueOf(&queue[T]{TypedRateLimitingInterface: sq, incarnation: h.incarnation}))
	old.ShutDown()
	return nil
}

// field is the settable field at path in v (pointers followed), unexported
// or not. Every test of this package runs Setup with each of Controllers:
// a path that upstream renamed fails them.
func field(v reflect.Value, path ...string) (reflect.Value, error) {
	for _, name := range path {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("%s is not a struct", v.Type())
		}
		f := v.FieldByName(name)
		if !f.IsValid() {
			return reflect.Value{}, fmt.Errorf("%s has no field %s", v.Type(), name)
		}
		if !f.CanAddr() {
			return reflect.Value{}, fmt.Errorf("%s.%s cannot be addressed", v.Type(), name)
		}
		v = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	return v, nil
}

// queue is the simulator's queue as a hosted controller holds it. Its
// ShutDown once the controllers' context has ended (Run's deferred call, at
// a crash or when the world closes) does not reach the simulator: the queue
// goes with the incarnation, and a call in from a goroutine of an ended
// incarnation, or while the world closes, would wait for ever.
type queue[T comparable] struct {
	workqueue.TypedRateLimitingInterface[T]
	incarnation context.Context
}

func (q *queue[T]) ShutDown() {
	if q.incarnation.Err() == nil {
		q.TypedRateLimitingInterface.ShutDown()
	}
}

// untilEnded is the log sink of a hosted controller: the process's (klog's
// global logger, which the simulator routes to the process's timeline) while
// the controllers run, nothing after (Run's "Shutting down" once its context
// ends, which no process would take: klog's stderr logger).
type untilEnded struct {
	logr.LogSink
	incarnation context.Context
}

func (s untilEnded) Enabled(level int) bool {
	return s.incarnation.Err() == nil && s.LogSink.Enabled(level)
}

func (s untilEnded) Info(level int, msg string, kv ...any) {
	if s.incarnation.Err() == nil {
		s.LogSink.Info(level, msg, kv...)
	}
}

func (s untilEnded) Error(err error, msg string, kv ...any) {
	if msg == "unable to register metrics" {
		// kube-controller-manager builds each controller once; here each
		// start of each world of the test binary builds it again, and every
		// metrics registration but the binary's first fails (a duplicate
		// collector): the line would tell the first world from the others.
		return
	}
	if s.incarnation.Err() == nil {
		s.LogSink.Error(err, msg, kv...)
	}
}

func (s untilEnded) WithValues(kv ...any) logr.LogSink {
	return untilEnded{s.LogSink.WithValues(kv...), s.incarnation}
}

func (s untilEnded) WithName(name string) logr.LogSink {
	return untilEnded{s.LogSink.WithName(name), s.incarnation}
}
