package kopf

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Reason is why a handler is called: kopf's change causes (causes.Reason).
type Reason string

// The change causes this port handles (kopf also has resume, noop, free, gone).
const (
	Create Reason = "create"
	Update Reason = "update"
	Delete Reason = "delete"
)

// Handler is a change handler, as registered with @kopf.on.create, on.update and
// on.delete: ID names its progress record, On the causes it handles, Fn does the
// work. An error is retried after the Reconciler's HandlerBackoff (kopf's
// default for arbitrary exceptions: 60 s, unlimited retries). A handler's
// progress is stored only by the framework's PATCH after it returns.
type Handler struct {
	ID string
	On []Reason
	Fn func(ctx context.Context, obj *KopfExample, reason Reason) error
}

func (h Handler) handles(r Reason) bool {
	for _, x := range h.On {
		if x == r {
			return true
		}
	}
	return false
}

// ReportHandler is the example operator's handler for creation and update (id
// "report"): it writes what it saw into the object's status with its own API
// calls, as handlers that call the Kubernetes API directly do: a Get from the API
// server (reader), then an Update of the status subresource (c), retried on a
// conflict up to three times. That write is a watch event on the object, so
// every handling of the object makes one (SEEDS.md, Seed 3 (b)6 [inference]).
func ReportHandler(c client.Client, reader client.Reader) Handler {
	return Handler{ID: "report", On: []Reason{Create, Update}, Fn: func(ctx context.Context, obj *KopfExample, _ Reason) error {
		var err error
		for range 3 {
			var live KopfExample
			if err = reader.Get(ctx, client.ObjectKeyFromObject(obj), &live); err != nil {
				return err
			}
			live.Status.HandlerRuns++
			live.Status.ObservedField = obj.Spec.Field
			if err = c.Status().Update(ctx, &live); !apierrors.IsConflict(err) {
				return err
			}
		}
		return fmt.Errorf("report: %w", err)
	}}
}

// QuietHandler is a handler for creation and update (id "quiet") with no side
// effect on the object: handling it makes no watch event of its own.
func QuietHandler() Handler {
	return Handler{ID: "quiet", On: []Reason{Create, Update}, Fn: func(context.Context, *KopfExample, Reason) error { return nil }}
}
