package envtestenv

import (
	"context"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// A Call is one write a controller made through a Recorder, with the API
// server's answer.
type Call struct {
	At time.Time
	// Verb is "create", "update", "patch", "delete", or "update/status" and
	// "patch/status" for the status subresource (as sim/trace names them).
	Verb string
	Kind string
	// Object is "namespace/name" (or "name" for cluster-scoped objects).
	Object string
	Err    error
}

// Recorder is a client that records every write made through it, and its
// result, so that a suite can assert on what a controller sent to the API
// server and what the server answered (the simulator's trace, for a real
// server). Reads are not recorded.
type Recorder struct {
	client.Client
	mu    sync.Mutex
	calls []Call
}

// Record wraps c.
func Record(c client.Client) *Recorder { return &Recorder{Client: c} }

// Calls are the recorded writes, in the order they returned.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Matching are the recorded writes of one verb and object ("" matches any).
func (r *Recorder) Matching(verb, object string) []Call {
	var out []Call
	for _, c := range r.Calls() {
		if (verb == "" || c.Verb == verb) && (object == "" || c.Object == object) {
			out = append(out, c)
		}
	}
	return out
}

func (r *Recorder) record(verb string, obj client.Object, err error) error {
	kind := ""
	if gvk, gvkErr := apiutil.GVKForObject(obj, r.Scheme()); gvkErr == nil {
		kind = gvk.Kind
	}
	key := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		key = ns + "/" + key
	}
	r.mu.Lock()
	r.calls = append(r.calls, Call{At: time.Now(), Verb: verb, Kind: kind, Object: key, Err: err})
	r.mu.Unlock()
	return err
}

func (r *Recorder) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return r.record("create", obj, r.Client.Create(ctx, obj, opts...))
}

func (r *Recorder) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return r.record("update", obj, r.Client.Update(ctx, obj, opts...))
}

func (r *Recorder) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return r.record("patch", obj, r.Client.Patch(ctx, obj, patch, opts...))
}

func (r *Recorder) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return r.record("delete", obj, r.Client.Delete(ctx, obj, opts...))
}

// Status records the status subresource's writes too.
func (r *Recorder) Status() client.SubResourceWriter {
	return statusRecorder{SubResourceWriter: r.Client.Status(), r: r}
}

type statusRecorder struct {
	client.SubResourceWriter
	r *Recorder
}

func (s statusRecorder) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	return s.r.record("update/status", obj, s.SubResourceWriter.Update(ctx, obj, opts...))
}

func (s statusRecorder) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return s.r.record("patch/status", obj, s.SubResourceWriter.Patch(ctx, obj, patch, opts...))
}
