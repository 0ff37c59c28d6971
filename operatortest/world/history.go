package world

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// HistoryObjects are the objects of one kind, with these labels, that an
// operator writes as a record of what happened (Options.History): Helm keeps
// a Secret per revision of a release, labelled owner=helm, whose status
// (deployed, superseded, failed) and number depend on every interruption.
//
//	History: []operatortest.HistoryObjects{{Kind: "Secret", Labels: map[string]string{"owner": "helm"}}},
type HistoryObjects struct {
	// Kind is the objects' kind ("Secret").
	Kind string
	// Labels select them (all of them: nil selects every object of Kind).
	Labels map[string]string
}

// historyOf checks the declared history objects: a known kind each.
func historyOf(h []HistoryObjects, known func(kind string) bool) ([]HistoryObjects, error) {
	for i, x := range h {
		if x.Kind == "" || !known(x.Kind) {
			return nil, fmt.Errorf("Options.History[%d]: kind %q is no kind of the scheme or the CRDs", i, x.Kind)
		}
	}
	return h, nil
}

// IsHistory reports whether o, of kind gvk, is a history object of the test.
func (w *World) IsHistory(gvk schema.GroupVersionKind, o client.Object) bool {
	for _, h := range w.history {
		if h.Kind == gvk.Kind && labels.SelectorFromSet(h.Labels).Matches(labels.Set(o.GetLabels())) {
			return true
		}
	}
	return false
}

// WithoutHistory are objs without the history objects among them.
func (w *World) WithoutHistory(gvk schema.GroupVersionKind, objs []client.Object) []client.Object {
	if len(w.history) == 0 {
		return objs
	}
	var out []client.Object
	for _, o := range objs {
		if !w.IsHistory(gvk, o) {
			out = append(out, o)
		}
	}
	return out
}
