package kopf

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

// Where kopf keeps its state in the object (kopf's AnnotationsProgressStorage and
// AnnotationsDiffBaseStorage with the default prefix, and its default finalizer).
const (
	Prefix                = "kopf.zalando.org"
	AnnotationLastHandled = Prefix + "/last-handled-configuration"
	Finalizer             = Prefix + "/KopfFinalizerMarker"
)

// ProgressAnnotation is the annotation holding a handler's progress record.
func ProgressAnnotation(handlerID string) string { return Prefix + "/" + handlerID }

// progress is a handler's progress record (kopf's progression.ProgressRecord).
type progress struct {
	Started string `json:"started,omitempty"`
	Stopped string `json:"stopped,omitempty"`
	Delayed string `json:"delayed,omitempty"`
	Purpose Reason `json:"purpose,omitempty"`
	Retries int    `json:"retries,omitempty"`
	Success bool   `json:"success,omitempty"`
	Failure bool   `json:"failure,omitempty"`
	Message string `json:"message,omitempty"`
}

func (p progress) done() bool { return p.Success || p.Failure }

// essence is what kopf diffs between handlings (diffbase_storage.build): the spec
// and the labels and annotations, without kopf's own annotations; never the
// status.
type essence struct {
	Spec     KopfExampleSpec `json:"spec"`
	Metadata essenceMeta     `json:"metadata"`
}

type essenceMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

func essenceOf(obj *KopfExample) string {
	e := essence{Spec: obj.Spec, Metadata: essenceMeta{Labels: obj.Labels}}
	for k, v := range obj.Annotations { // lint:order-independent json.Marshal sorts map keys
		if strings.HasPrefix(k, Prefix+"/") || k == "kubectl.kubernetes.io/last-applied-configuration" {
			continue
		}
		if e.Metadata.Annotations == nil {
			e.Metadata.Annotations = map[string]string{}
		}
		e.Metadata.Annotations[k] = v
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // strings and maps of strings always marshal
	}
	return string(b)
}

// lastHandled is the stored diff base, normalised; ok is false when there is none.
func lastHandled(obj *KopfExample) (string, bool, error) {
	raw, ok := obj.Annotations[AnnotationLastHandled]
	if !ok {
		return "", false, nil
	}
	var e essence
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		return "", false, fmt.Errorf("parsing %s: %w", AnnotationLastHandled, err)
	}
	b, _ := json.Marshal(e)
	return string(b), true, nil
}

// patch is kopf's accumulated Patch: changes to annotations (nil deletes) and,
// when set, the new finalizer list. It is sent once per handling cycle.
type patch struct {
	annotations map[string]*string
	finalizers  []string
	setFinal    bool
}

func (p *patch) annotate(key string, value *string) {
	if p.annotations == nil {
		p.annotations = map[string]*string{}
	}
	p.annotations[key] = value
}

func (p *patch) empty() bool { return len(p.annotations) == 0 && !p.setFinal }

// body is the JSON merge patch (RFC 7386): json.Marshal sorts map keys, so equal
// patches are equal bytes.
func (p *patch) body() []byte {
	meta := map[string]any{}
	if len(p.annotations) > 0 {
		meta["annotations"] = p.annotations
	}
	if p.setFinal {
		meta["finalizers"] = p.finalizers
	}
	b, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		panic(err)
	}
	return b
}

// cycle is the result of one handling cycle.
type cycle struct {
	patched bool          // a PATCH was sent (and succeeded, if err is nil)
	delay   time.Duration // a handler is delayed this long (kopf sleeps and touches)
}

// handle is one handling cycle of obj, the span that nolar/kopf #510 throttles:
// kopf's process_resource_causes followed by apply_reaction_outcomes
// (kopf/_core/reactor/processing.py). It decides the cause (finalizer first,
// then deletion, creation, update or nothing), runs at most one handler (kopf's
// default "asap" lifecycle: the pending handler with the fewest retries), and
// sends every change (progress, diff base, finalizers) in one PATCH. Any error,
// including a PATCH rejected with 422, is returned.
func (r *Reconciler) handle(ctx context.Context, obj *KopfExample) (cycle, error) {
	var p patch
	needsFinalizer := slices.ContainsFunc(r.Handlers, func(h Handler) bool { return h.handles(Delete) })
	deleting := obj.DeletionTimestamp != nil
	blocked := slices.Contains(obj.Finalizers, Finalizer)

	var reason Reason
	switch {
	case needsFinalizer && !blocked && !deleting:
		// "Adding the finalizer, thus preventing the actual deletion."
		p.setFinal, p.finalizers = true, append(slices.Clone(obj.Finalizers), Finalizer)
	case !needsFinalizer && blocked:
		// "Removing the finalizer, as there are no handlers requiring it."
		p.setFinal, p.finalizers = true, slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == Finalizer })
	case deleting && blocked:
		reason = Delete
	case deleting: // FREE: deletion we do not care about
		return cycle{}, nil
	default:
		old, ok, err := lastHandled(obj)
		if err != nil {
			return cycle{}, err
		}
		switch {
		case !ok:
			reason = Create
		case old != essenceOf(obj):
			reason = Update
		default: // NOOP: "the essence is the same"
			if r.Variant != variant.Robust {
				return cycle{}, nil
			}
			// A record on an object whose essence is handled was decided
			// from a stale body (a handling of a version older than the
			// one whose diff base is stored): robust purges it.
			for _, h := range r.Handlers {
				if key := ProgressAnnotation(h.ID); obj.Annotations[key] != "" {
					p.annotate(key, nil)
				}
			}
		}
	}

	var delay time.Duration
	if reason != "" {
		done, d, err := r.runHandlers(ctx, obj, reason, &p)
		if err != nil {
			return cycle{}, err
		}
		delay = d
		if done {
			if reason == Delete {
				// "Removing the finalizer, thus allowing the actual deletion."
				p.setFinal, p.finalizers = true, slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == Finalizer })
			} else {
				e := essenceOf(obj)
				p.annotate(AnnotationLastHandled, &e)
			}
		}
	}
	if p.empty() {
		return cycle{delay: delay}, nil
	}
	// apply_reaction_outcomes: one PATCH of the object (not its status).
	err := r.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, p.body()))
	return cycle{patched: true, delay: delay}, err
}

// runHandlers runs at most one due handler of reason and records the progress in
// p. done reports that every handler of reason has finished (their progress is
// then purged); delay is how long until a delayed handler is due.
func (r *Reconciler) runHandlers(ctx context.Context, obj *KopfExample, reason Reason, p *patch) (done bool, delay time.Duration, err error) {
	now := r.Clock.Now()
	type state struct {
		h   Handler
		rec progress
	}
	var states []state
	for _, h := range r.Handlers {
		if !h.handles(reason) {
			continue
		}
		var rec progress
		if raw, ok := obj.Annotations[ProgressAnnotation(h.ID)]; ok {
			if err := json.Unmarshal([]byte(raw), &rec); err != nil {
				return false, 0, fmt.Errorf("parsing progress of handler %q: %w", h.ID, err)
			}
			if rec.Purpose != reason { // superseded by the current cause: purged
				rec = progress{}
			}
		}
		states = append(states, state{h, rec})
	}

	// The asap lifecycle: among the pending handlers that are due, the one with
	// the fewest retries (stable, so registration order breaks ties).
	pick := -1
	for i, s := range states {
		if s.rec.done() {
			continue
		}
		if s.rec.Delayed != "" {
			if t, err := time.Parse(time.RFC3339Nano, s.rec.Delayed); err == nil && t.After(now) {
				if d := t.Sub(now); delay == 0 || d < delay {
					delay = d
				}
				continue
			}
		}
		if pick < 0 || s.rec.Retries < states[pick].rec.Retries {
			pick = i
		}
	}
	if pick >= 0 {
		s := &states[pick]
		if s.rec.Started == "" {
			s.rec.Started = now.UTC().Format(time.RFC3339Nano)
		}
		s.rec.Purpose = reason
		if herr := s.h.Fn(ctx, obj, reason); herr != nil {
			s.rec.Retries++
			s.rec.Delayed = now.Add(r.handlerBackoff()).UTC().Format(time.RFC3339Nano)
			s.rec.Message = herr.Error()
			if d := r.handlerBackoff(); delay == 0 || d < delay {
				delay = d
			}
		} else {
			s.rec.Success, s.rec.Delayed, s.rec.Message = true, "", ""
			s.rec.Stopped = now.UTC().Format(time.RFC3339Nano)
		}
	}

	// kopf decides from its event's body: it purges the records the body
	// shows and stores every handler's record. A body older than kopf's own
	// last PATCH (informer lag; a lost response retried) shows an old
	// record or none, so kopf can leave a failed attempt's record that a
	// later success has purged, or put one back, for good. Robust purges
	// every handler's record (deleting an absent key in a merge patch is a
	// no-op) and stores only the record of the handler it ran.
	robust := r.Variant == variant.Robust
	done = !slices.ContainsFunc(states, func(s state) bool { return !s.rec.done() })
	for i, s := range states {
		key := ProgressAnnotation(s.h.ID)
		if done { // state.purge
			if _, ok := obj.Annotations[key]; ok || robust {
				p.annotate(key, nil)
			}
			continue
		}
		if robust && i != pick {
			continue
		}
		b, _ := json.Marshal(s.rec)
		v := string(b)
		p.annotate(key, &v)
	}
	if done {
		delay = 0
	}
	return done, delay, nil
}
