package poller

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// Registry is the outside system: an image registry, which publishes the
// versions of each repository.
type Registry interface {
	// Latest is the latest version the registry publishes for repository.
	Latest(ctx context.Context, repository string) (string, error)
}

// Interval is how often the poller asks the registry.
const Interval = 10 * time.Second

// Poller is a manager Runnable: it starts a goroutine that polls the
// registry every Interval and sends a GenericEvent for each Image whose
// status is behind it into the controller's source.Channel.
type Poller struct {
	Client   client.Reader
	Registry Registry
	Events   chan<- event.GenericEvent
	Log      logr.Logger
	// Buggy returns the registry's error from the poll's condition, which
	// ends wait.PollUntilContextCancel for good: one failed poll and the
	// poller is gone while the manager runs on.
	Buggy bool
}

// Start starts the polling goroutine and waits for the manager to stop.
func (p *Poller) Start(ctx context.Context) error {
	go p.poll(ctx)
	<-ctx.Done()
	return nil
}

func (p *Poller) poll(ctx context.Context) {
	err := wait.PollUntilContextCancel(ctx, Interval, true, func(ctx context.Context) (bool, error) {
		var images ImageList
		if err := p.Client.List(ctx, &images); err != nil {
			return false, p.failed(err)
		}
		for i := range images.Items {
			img := &images.Items[i]
			latest, err := p.Registry.Latest(ctx, img.Spec.Repository)
			if err != nil {
				return false, p.failed(err)
			}
			if latest == img.Status.Latest {
				continue
			}
			select {
			case p.Events <- event.GenericEvent{Object: img}:
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
		return false, nil
	})
	p.Log.Info("poller stopped", "reason", err)
}

// failed is what a failed poll does: the fixed poller logs it and polls
// again at the next tick.
func (p *Poller) failed(err error) error {
	if p.Buggy {
		return err
	}
	p.Log.Error(err, "polling the registry")
	return nil
}

// Reconciler writes the registry's latest version into each Image's status.
type Reconciler struct {
	client.Client
	Registry Registry
}

// Reconcile reads the registry and updates status.latest.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var img Image
	if err := r.Get(ctx, req.NamespacedName, &img); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	latest, err := r.Registry.Latest(ctx, img.Spec.Repository)
	if err != nil {
		return ctrl.Result{}, err
	}
	if img.Status.Latest == latest {
		return ctrl.Result{}, nil
	}
	img.Status.Latest = latest
	return ctrl.Result{}, r.Status().Update(ctx, &img)
}

// SetupWithManager watches Images and the poller's events.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, events <-chan event.GenericEvent) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&Image{}).
		WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
		Complete(r)
}

// Setup is what main does: the poller and the controller, joined by a
// channel.
func Setup(mgr manager.Manager, registry Registry, buggy bool) error {
	events := make(chan event.GenericEvent)
	if err := mgr.Add(&Poller{Client: mgr.GetClient(), Registry: registry, Events: events,
		Log: ctrl.Log.WithName("poller"), Buggy: buggy}); err != nil {
		return err
	}
	return (&Reconciler{Client: mgr.GetClient(), Registry: registry}).SetupWithManager(mgr, events)
}
