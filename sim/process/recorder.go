package process

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ref "k8s.io/client-go/tools/reference"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// GetEventRecorderFor returns an EventRecorder as mgr.GetEventRecorderFor(name)
// does: each Event is written to the apiserver model as a corev1.Event of the
// involved object's namespace (default for a cluster-scoped object), named as
// client-go names it (<object>.<hex nanoseconds>), with Source.Component and
// ReportingController name. As with client-go's broadcaster the write happens
// after the call returns (at the same virtual instant, from the kernel), is an API
// call of the process (its trace step shows it; RBAC applies), and is lost if the
// process dies first. An invalid event type is dropped with a log line.
func (p *Process) GetEventRecorderFor(name string) record.EventRecorder {
	return &eventRecorder{p: p, component: name}
}

type eventRecorder struct {
	p         *Process
	component string
}

func (r *eventRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	r.emit(obj, nil, eventtype, reason, message)
}

func (r *eventRecorder) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.emit(obj, nil, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *eventRecorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.emit(obj, annotations, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *eventRecorder) emit(obj runtime.Object, annotations map[string]string, eventtype, reason, message string) {
	p := r.p
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		// client-go's recorder (tools/record/event.go generateEvent) refuses it.
		p.record(trace.Step{Op: "log", Result: fmt.Sprintf("ERROR unsupported event type: %q", eventtype)})
		return
	}
	involved, err := ref.GetReference(p.GetScheme(), obj)
	if err != nil {
		p.record(trace.Step{Op: "log", Result: fmt.Sprintf("ERROR could not construct reference to: %T: %v", obj, err)})
		return
	}
	now := p.env.Clock.Now()
	ns := involved.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%v.%x", involved.Name, now.UnixNano()), Annotations: annotations},
		InvolvedObject:      *involved,
		Reason:              reason,
		Message:             message,
		Type:                eventtype,
		Source:              corev1.EventSource{Component: r.component},
		FirstTimestamp:      metav1.NewTime(now),
		LastTimestamp:       metav1.NewTime(now),
		Count:               1,
		ReportingController: r.component,
	}
	incarnation := p.incarnation
	p.env.Clock.AfterFunc(0, func() {
		if !p.started || p.incarnation != incarnation {
			return // the process died: its broadcaster's queue died with it
		}
		if err := p.client.Create(context.Background(), ev); err != nil {
			// client-go logs a rejected event and drops it.
			p.record(trace.Step{Op: "log", Result: fmt.Sprintf("ERROR Server rejected event (will not retry!) reason=%s error=%q", reason, err.Error())})
		}
	})
}
