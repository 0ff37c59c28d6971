package apiserver

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Fault makes matching requests fail the way a real cluster can fail them. Empty
// match fields match anything.
type Fault struct {
	// Agent, if set, limits the fault to requests of that client (User.Agent):
	// one process's requests fail, as when its own network path fails.
	Agent       string
	Verb        string // get list create update patch delete deletecollection
	Resource    string // plural resource, e.g. "configmaps"
	Subresource string // e.g. "status"
	Namespace   string
	Name        string

	// Code is the HTTP status of the error: 403, 409, 422, 429, 500, 503 or 504.
	// With Ambiguous, the write is applied and the client then sees a 504 timeout,
	// as when a response is lost after etcd committed.
	Code      int
	Ambiguous bool
	// Field and Message shape a 422: the field path and detail of the Invalid error.
	Field   string
	Message string
	// Count is how many matching requests fail; 0 means all of them.
	Count int
}

// String is the fault's text form: space-separated key=value pairs, zero fields omitted.
func (f Fault) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("process", f.Agent)
	add("verb", f.Verb)
	add("resource", f.Resource)
	add("subresource", f.Subresource)
	add("namespace", f.Namespace)
	add("name", f.Name)
	if f.Code != 0 {
		add("code", fmt.Sprint(f.Code))
	}
	if f.Ambiguous {
		add("ambiguous", "true")
	}
	add("field", f.Field)
	add("message", f.Message)
	if f.Count != 0 {
		add("count", fmt.Sprint(f.Count))
	}
	return strings.Join(parts, " ")
}

type activeFault struct {
	Fault
	hits int
}

// InjectFault installs f until remove is called or its Count is used up. Faults
// are checked in the order they were injected; the first match applies.
func (s *Server) InjectFault(f Fault) (remove func()) {
	if !f.Ambiguous {
		switch f.Code {
		case 403, 409, 422, 429, 500, 503, 504:
		default:
			panic(fmt.Sprintf("apiserver.InjectFault: unsupported code %d", f.Code))
		}
	}
	af := &activeFault{Fault: f}
	s.faults = append(s.faults, af)
	return func() {
		for i, x := range s.faults {
			if x == af {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

func (f *activeFault) matches(r Request) bool {
	return (f.Agent == "" || f.Agent == r.User.Agent) &&
		(f.Verb == "" || f.Verb == r.Verb) &&
		(f.Resource == "" || f.Resource == r.Kind.Resource) &&
		(f.Subresource == "" || f.Subresource == r.Subresource) &&
		(f.Namespace == "" || f.Namespace == r.Namespace) &&
		(f.Name == "" || f.Name == r.Name) &&
		(f.Count == 0 || f.hits < f.Count)
}

// match returns the first fault that applies to r and counts the hit.
func (s *Server) match(r Request) *activeFault {
	for _, f := range s.faults {
		if f.matches(r) {
			f.hits++
			return f
		}
	}
	return nil
}

// injectedError returns the error of a non-ambiguous fault matching r: the same
// *apierrors.StatusError a real server would send, with nothing marking it injected
// (the trace records which fault fired).
func (s *Server) injectedError(r Request) error {
	if len(s.faults) == 0 {
		return nil
	}
	f := s.match(r)
	if f == nil {
		return nil
	}
	if f.Ambiguous {
		// Un-count: the ambiguous fault fires after the write (see ambiguous).
		f.hits--
		return nil
	}
	return faultError(f.Fault, r)
}

// ambiguous reports whether a write that just succeeded must be reported to the
// client as a timeout.
func (s *Server) ambiguous(r Request) error {
	if len(s.faults) == 0 {
		return nil
	}
	for _, f := range s.faults {
		if f.Ambiguous && f.matches(r) {
			f.hits++
			return faultError(Fault{Code: 504}, r)
		}
	}
	return nil
}

func faultError(f Fault, r Request) error {
	gr := r.Kind.GroupResource()
	msg := f.Message
	var err *apierrors.StatusError
	switch f.Code {
	case 403:
		if msg == "" {
			msg = "injected fault"
		}
		err = apierrors.NewForbidden(gr, r.Name, errors.New(msg))
	case 409:
		err = apierrors.NewConflict(gr, r.Name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	case 422:
		path := f.Field
		if path == "" {
			path = "metadata"
		}
		if msg == "" {
			msg = "injected fault"
		}
		err = apierrors.NewInvalid(schema.GroupKind{Group: r.Kind.GVK.Group, Kind: r.Kind.GVK.Kind}, r.Name,
			field.ErrorList{field.Invalid(fieldPath(path), nil, msg)})
	case 429:
		err = apierrors.NewTooManyRequests("the server has received too many requests and has asked us to try again later", 1)
	case 500:
		if msg == "" {
			msg = "injected fault"
		}
		err = apierrors.NewInternalError(errors.New(msg))
	case 503:
		err = apierrors.NewServiceUnavailable("the server is currently unable to handle the request")
	default: // 504
		err = apierrors.NewTimeoutError("the server was unable to return a response in the time allotted, but may still be processing the request", 0)
	}
	return err
}

func fieldPath(p string) *field.Path {
	parts := strings.Split(p, ".")
	return field.NewPath(parts[0], parts[1:]...)
}
