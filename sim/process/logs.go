package process

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// traceSink is the logr.LogSink of a process: every line a controller logs at
// level 0 (Info) or as an error becomes a trace step ("log"), with its virtual
// time, process, controller, worker and reconcile, so that timelines, failure
// reports and the inspector show what the controller said next to what it did.
// Lines at V(1) and beyond (debug) are dropped, as controller-runtime's default
// production logger drops them.
type traceSink struct {
	p      *Process
	name   string
	values []any
}

func (s *traceSink) Init(logr.RuntimeInfo) {}

func (s *traceSink) Enabled(level int) bool { return level <= 0 }

func (s *traceSink) Info(level int, msg string, kv ...any) {
	if level > 0 {
		return
	}
	s.p.record(trace.Step{Op: "log", Result: s.line(msg, kv)})
}

func (s *traceSink) Error(err error, msg string, kv ...any) {
	line := s.line(msg, kv)
	if err != nil {
		line += " error=" + quoteValue(err.Error())
	}
	s.p.record(trace.Step{Op: "log", Result: "ERROR " + line})
}

func (s *traceSink) WithValues(kv ...any) logr.LogSink {
	return &traceSink{p: s.p, name: s.name, values: append(append([]any(nil), s.values...), kv...)}
}

func (s *traceSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "." + name
	}
	return &traceSink{p: s.p, name: name, values: s.values}
}

// line is msg followed by the key=value pairs, in the order given (logr's
// contract: the caller's order, which is deterministic).
func (s *traceSink) line(msg string, kv []any) string {
	var b strings.Builder
	if s.name != "" {
		b.WriteString(s.name + ": ")
	}
	b.WriteString(msg)
	all := append(append([]any(nil), s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		fmt.Fprintf(&b, " %v=%s", all[i], quoteValue(fmt.Sprint(all[i+1])))
	}
	return b.String()
}

func quoteValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\n\"=") {
		return fmt.Sprintf("%q", v)
	}
	return v
}

// Logger is the process's logger: its lines go into the trace (see traceSink).
func (p *Process) Logger() logr.Logger { return logr.New(&traceSink{p: p}) }
