package process

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/go-logr/logr"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// traceSink is the logr.LogSink of a process: every line a controller logs at
// level 0 (Info) or as an error becomes a trace step ("log"), with its virtual
// time, process, controller, worker and reconcile, so that timelines, failure
// reports and the inspector show what the controller said next to what it did.
// Lines at V(1) and beyond (debug) are dropped, as controller-runtime's default
// production logger drops them.
//
// Values that controller-runtime attaches to its loggers (controller, kind,
// namespace, name, reconcileID) are hidden: the step already says which
// controller and reconcile logged, and a reconcileID is random. A sink from the
// manager's GetLogger is internal: values added to it are hidden; the logger a
// reconciler finds in its context shows the values the reconciler adds. Values
// print as zap prints them: text (strings, of named string types too, errors
// and Stringers) as itself, in double quotes only where it has spaces, quotes
// or "="; anything else as JSON, never as Go pointers, so that lines are the
// same in every run.
type traceSink struct {
	p          *Process
	m          *Manager // the incarnation; its lines stop when it ends
	name       string
	values     []any  // shown
	controller string // the hidden "controller" value, for lines outside a worker
	internal   bool   // values added are hidden

	// For internal sinks only: derived sinks are made once and shared, since
	// controller-runtime derives a logger for every reconcile (its
	// LogConstructor, then the reconcileID) and they differ only in hidden
	// values. Sinks are immutable once made, and every task runs under the
	// scheduler one at a time.
	derived map[sinkKey]*traceSink // shared by the internal sinks of one root
	user    *traceSink             // this sink as a reconciler gets it (userLogger)
}

// sinkKey names a derived internal sink.
type sinkKey struct{ name, controller string }

func (s *traceSink) Init(logr.RuntimeInfo) {}

func (s *traceSink) Enabled(level int) bool { return level <= 0 }

// gone reports whether the line must be dropped: its incarnation has ended (a
// goroutine of controller-runtime's logging at shutdown), or it comes from a
// killed worker unwinding.
func (s *traceSink) gone() bool {
	if s.m != nil && s.m.stopped.Load() {
		return true
	}
	return s.p.env.Scheduler.Killed()
}

func (s *traceSink) Info(level int, msg string, kv ...any) {
	if level > 0 || s.gone() {
		return
	}
	s.p.record(trace.Step{Op: "log", Controller: s.controller, Result: s.line(msg, kv)})
}

func (s *traceSink) Error(err error, msg string, kv ...any) {
	if s.gone() {
		return
	}
	line := s.line(msg, kv)
	if err != nil {
		line += " error=" + quoteValue(err.Error())
	}
	s.p.record(trace.Step{Op: "log", Controller: s.controller, Result: "ERROR " + line})
}

// WithValues adds values: shown ones are kept, hidden ones (added to an
// internal sink: controller-runtime's own) are dropped but for the
// controller's name.
func (s *traceSink) WithValues(kv ...any) logr.LogSink {
	if s.internal {
		controller := s.controller
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == "controller" {
				if name, ok := kv[i+1].(string); ok {
					controller = name
				}
			}
		}
		return s.derive(s.name, controller)
	}
	c := *s
	c.values = append(append([]any(nil), s.values...), kv...)
	return &c
}

func (s *traceSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "." + name
	}
	if s.internal {
		return s.derive(name, s.controller)
	}
	c := *s
	c.name = name
	return &c
}

// derive is the internal sink with this name and controller, made once.
func (s *traceSink) derive(name, controller string) *traceSink {
	if name == s.name && controller == s.controller {
		return s
	}
	k := sinkKey{name, controller}
	if d, ok := s.derived[k]; ok {
		return d
	}
	d := &traceSink{p: s.p, m: s.m, name: name, controller: controller, internal: true, derived: s.derived}
	s.derived[k] = d
	return d
}

// line is msg followed by the shown key=value pairs, in the order given (logr's
// contract: the caller's order, which is deterministic).
func (s *traceSink) line(msg string, kv []any) string {
	var b strings.Builder
	if s.name != "" {
		b.WriteString(s.name + ": ")
	}
	b.WriteString(msg)
	all := append(append([]any(nil), s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		text, isText := valueText(all[i+1])
		if isText {
			text = quoteValue(text)
		}
		fmt.Fprintf(&b, " %v=%s", all[i], text)
	}
	return b.String()
}

// valueText is a logged value as zap writes it: text (a string, of a named
// string type too, an error, a Stringer, an object's name) as itself, quoted
// by the caller only where it has spaces or quotes; anything else as JSON,
// which is never quoted again.
func valueText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case error:
		return x.Error(), true
	case runtime.Object:
		return objectText(x), true
	case fmt.Stringer:
		return x.String(), true
	case nil:
		return "null", false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String(), true // type Phase string, say
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v), true
	}
	return string(b), false
}

// objectText is a Kubernetes object as controller-runtime's zap logger
// (KubeAwareEncoder) writes one: apiVersion and kind when set, namespace and
// name; never its content (whose generated String prints pointers).
func objectText(o runtime.Object) string {
	if v := reflect.ValueOf(o); v.Kind() == reflect.Pointer && v.IsNil() {
		return "null"
	}
	acc, err := meta.Accessor(o)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	var b strings.Builder
	b.WriteByte('{')
	if gvk := o.GetObjectKind().GroupVersionKind(); gvk.Version != "" {
		fmt.Fprintf(&b, "apiVersion=%s kind=%s ", gvk.GroupVersion(), gvk.Kind)
	}
	if ns := acc.GetNamespace(); ns != "" {
		fmt.Fprintf(&b, "namespace=%s ", ns)
	}
	fmt.Fprintf(&b, "name=%s}", acc.GetName())
	return b.String()
}

func quoteValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\n\"=") {
		return fmt.Sprintf("%q", v)
	}
	return v
}

// Logger is the process's logger: its lines go into the trace (see traceSink).
func (p *Process) Logger() logr.Logger { return logr.New(&traceSink{p: p, m: p.mgr}) }

// baseLogger is the manager's logger: values added to it are hidden.
func (p *Process) baseLogger() logr.Logger {
	return logr.New(&traceSink{p: p, m: p.mgr, internal: true, derived: map[sinkKey]*traceSink{}})
}

// userLogger is l as a reconciler gets it: values added from now on show.
func userLogger(l logr.Logger) logr.Logger {
	s, ok := l.GetSink().(*traceSink)
	if !ok {
		return l
	}
	if !s.internal {
		return l
	}
	if s.user == nil {
		s.user = &traceSink{p: s.p, m: s.m, name: s.name, controller: s.controller}
	}
	return l.WithSink(s.user)
}
