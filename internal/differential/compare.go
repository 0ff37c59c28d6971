package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Outcome is the result of one operation in the form both sides are compared in:
// objects in their JSON form with uids, timestamps, resourceVersions and generated
// names replaced by placeholders that keep their relations (see normaliser).
type Outcome struct {
	Error  *ErrorOutcome `json:"error,omitempty"`
	Object any           `json:"object,omitempty"`
	Items  []any         `json:"items,omitempty"`
	IsList bool          `json:"list,omitempty"`
	// Unordered is set when a list's items are not in etcd key order.
	Unordered bool `json:"unordered,omitempty"`
}

func key(o client.Object) string { return o.GetNamespace() + "/" + o.GetName() }

func itemName(item any) string {
	md, _ := item.(map[string]any)["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	return name
}

// ErrorOutcome is an error: the API status for an error from the server (or
// modelled as one), else the error text (errors client-go raises before sending).
type ErrorOutcome struct {
	Code    int32                 `json:"code,omitempty"`
	Reason  metav1.StatusReason   `json:"reason,omitempty"`
	Message string                `json:"message,omitempty"`
	Details *metav1.StatusDetails `json:"details,omitempty"`
	Text    string                `json:"text,omitempty"`
}

// Comparison is one sequence run on both sides.
type Comparison struct {
	Ops                 []Op
	Model, Real         []Outcome
	ModelTime, RealTime time.Duration // wall time of the operations on each side
}

// FinalOps are appended to every sequence: admin lists of every kind in both
// namespaces, so the end states are compared too.
func FinalOps() []Op {
	var ops []Op
	for _, k := range KindNames {
		if k == Namespace {
			ops = append(ops, Op{Verb: List, Kind: k})
			continue
		}
		for _, ns := range []string{"a", "b"} {
			ops = append(ops, Op{Verb: List, Kind: k, Namespace: ns})
		}
	}
	return ops
}

// Compare runs ops (then FinalOps) on the model and on the real server, each with the
// run's names, and normalises the results.
func Compare(ctx context.Context, model, real Cluster, names Names, ops []Op, tol Tolerances) *Comparison {
	all := append(append([]Op(nil), ops...), FinalOps()...)
	c := &Comparison{Ops: all}
	c.Model, c.ModelTime = runSide(ctx, model, names, all, tol)
	c.Real, c.RealTime = runSide(ctx, real, names, all, tol)
	return c
}

func runSide(ctx context.Context, cl Cluster, names Names, ops []Op, tol Tolerances) ([]Outcome, time.Duration) {
	s := newSide(cl, names)
	raws := make([]raw, len(ops))
	start := time.Now()
	for i, op := range ops {
		raws[i] = s.do(ctx, op)
	}
	elapsed := time.Since(start)
	n := newNormaliser(raws, s.genNames, tol)
	out := make([]Outcome, len(raws))
	for i, r := range raws {
		out[i] = n.outcome(r)
	}
	return out, elapsed
}

// A Step is a request a focused test makes itself, on one side: it returns the
// object the client holds afterwards (nil for none) and the error.
type Step struct {
	Name string
	Do   func(ctx context.Context, c client.Client, namespace string) (client.Object, error)
}

// CompareSteps runs steps as the admin on both sides, in namespace "a" of the run
// (created first), and normalises the results like Compare.
func CompareSteps(ctx context.Context, model, real Cluster, names Names, steps []Step, tol Tolerances) *Comparison {
	c := &Comparison{}
	for _, st := range steps {
		c.Ops = append(c.Ops, Op{Verb: Verb(st.Name)})
	}
	run := func(cl Cluster) ([]Outcome, time.Duration) {
		s := newSide(cl, names)
		s.do(ctx, Op{Verb: Create, Kind: Namespace, Namespace: "a"})
		admin, err := cl.Client(apiserver.Admin)
		if err != nil {
			panic(err)
		}
		raws := make([]raw, len(steps))
		start := time.Now()
		for i, st := range steps {
			o, err := st.Do(ctx, admin, names.Namespace("a"))
			raws[i] = raw{obj: o, err: err}
		}
		elapsed := time.Since(start)
		n := newNormaliser(raws, nil, tol)
		out := make([]Outcome, len(raws))
		for i, r := range raws {
			out[i] = n.outcome(r)
		}
		return out, elapsed
	}
	c.Model, c.ModelTime = run(model)
	c.Real, c.RealTime = run(real)
	return c
}

// Diff describes the first operation whose outcomes differ, with the sequence up to
// it; "" when every outcome is the same.
func (c *Comparison) Diff() string {
	for i := range c.Ops {
		if d := cmp.Diff(c.Model[i], c.Real[i]); d != "" {
			var b strings.Builder
			fmt.Fprintf(&b, "divergence at op %d: %s\n", i, c.Ops[i])
			fmt.Fprintf(&b, "  model: %s\n  real:  %s\n", c.Model[i], c.Real[i])
			fmt.Fprintf(&b, "  diff (-model +real):\n%s", indent(d, "    "))
			b.WriteString("  sequence (outcome on the model | on kube-apiserver; * differs):\n")
			for j := range c.Ops {
				mark := " "
				if cmp.Diff(c.Model[j], c.Real[j]) != "" {
					mark = "*"
				}
				fmt.Fprintf(&b, "   %s%2d %-60s %s | %s\n", mark, j, c.Ops[j], c.Model[j].Short(), c.Real[j].Short())
			}
			b.WriteString("  as Go:\n")
			for j := 0; j <= i; j++ {
				fmt.Fprintf(&b, "    %#v,\n", c.Ops[j])
			}
			return b.String()
		}
	}
	return ""
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

func (o Outcome) String() string {
	b, err := json.Marshal(o)
	if err != nil {
		return fmt.Sprintf("%#v", o)
	}
	return string(b)
}

// Category is the kind of outcome: ok, the error reason, or "client error".
func (o Outcome) Category() string {
	switch {
	case o.Error != nil && o.Error.Text != "":
		return "client error"
	case o.Error != nil:
		return fmt.Sprintf("%d %s", o.Error.Code, o.Error.Reason)
	}
	return "ok"
}

// Short is a one-line summary: the error reason, or ok with the resourceVersion.
func (o Outcome) Short() string {
	switch {
	case o.Error != nil && o.Error.Text != "":
		return "error: " + o.Error.Text
	case o.Error != nil:
		return fmt.Sprintf("%d %s", o.Error.Code, o.Error.Reason)
	case o.IsList:
		var rvs []string
		for _, it := range o.Items {
			if md, ok := it.(map[string]any)["metadata"].(map[string]any); ok {
				rvs = append(rvs, fmt.Sprintf("%v %v", md["name"], md["resourceVersion"]))
			}
		}
		return fmt.Sprintf("ok [%s]", strings.Join(rvs, ", "))
	}
	if m, ok := o.Object.(map[string]any); ok {
		if md, ok := m["metadata"].(map[string]any); ok {
			return fmt.Sprintf("ok %v", md["resourceVersion"])
		}
	}
	return "ok"
}

// normaliser turns one side's raw results into Outcomes. uids become uid-1, uid-2...
// in order of appearance; resourceVersions become rv-N where N is the rank of the
// value among every resourceVersion the side's client saw in the run (so equal stays
// equal and the order of writes is kept, while the real server's unrelated writes
// drop out); generated names become gen-#N; timestamps become "<time>".
type normaliser struct {
	tol   Tolerances
	uids  map[string]string
	ranks map[string]string
	gen   map[string]string
}

func newNormaliser(raws []raw, generated []string, tol Tolerances) *normaliser {
	n := &normaliser{tol: tol, uids: map[string]string{}, ranks: map[string]string{}, gen: map[string]string{}}
	for i, g := range generated {
		n.gen[g] = fmt.Sprintf("gen-#%d", i+1)
	}
	var rvs []uint64
	seenRV := map[uint64]bool{}
	visit := func(o client.Object) {
		if u := string(o.GetUID()); u != "" {
			if _, ok := n.uids[u]; !ok {
				n.uids[u] = fmt.Sprintf("uid-%d", len(n.uids)+1)
			}
		}
		if v, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64); err == nil && !seenRV[v] {
			seenRV[v] = true
			rvs = append(rvs, v)
		}
	}
	for _, r := range raws {
		if r.err != nil {
			continue
		}
		if r.obj != nil && tol.FinalizedObjectKeepsVersion && finalized(r.obj) {
			r.obj.SetResourceVersion("")
		}
		if r.obj != nil {
			visit(r.obj)
		}
		if r.list != nil {
			items, _ := listItems(r.list)
			for _, o := range items {
				visit(o)
			}
		}
	}
	sort.Slice(rvs, func(i, j int) bool { return rvs[i] < rvs[j] })
	for i, v := range rvs {
		n.ranks[strconv.FormatUint(v, 10)] = fmt.Sprintf("rv-%d", i+1)
	}
	return n
}

func (n *normaliser) outcome(r raw) Outcome {
	if r.err != nil {
		return Outcome{Error: n.error(r.err)}
	}
	if r.list != nil {
		items, err := listItems(r.list)
		if err != nil {
			panic(err)
		}
		out := Outcome{IsList: true, Items: []any{}}
		// Items come in etcd key order on both sides; generated names make that order
		// differ between sides, so check it here and compare the items sorted by their
		// normalised names.
		for i := 1; i < len(items); i++ {
			if key(items[i-1]) >= key(items[i]) {
				out.Unordered = true
			}
		}
		for _, o := range items {
			m := n.object(o).(map[string]any)
			if n.tol.ListItemTypeMeta {
				delete(m, "apiVersion")
				delete(m, "kind")
			}
			out.Items = append(out.Items, m)
		}
		sort.SliceStable(out.Items, func(i, j int) bool { return itemName(out.Items[i]) < itemName(out.Items[j]) })
		return out
	}
	if r.obj != nil {
		m := n.object(r.obj).(map[string]any)
		if n.tol.CallerTypeMetaKept {
			delete(m, "apiVersion")
			delete(m, "kind")
		}
		return Outcome{Object: m}
	}
	return Outcome{}
}

func (n *normaliser) object(o client.Object) any {
	var m map[string]any
	if err := json.Unmarshal(mustJSON(o), &m); err != nil {
		panic(err)
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		return m
	}
	delete(md, "managedFields") // compared by TestServerSideApplyMatchesKubeAPIServer only (doc.go)
	for _, f := range []string{"creationTimestamp", "deletionTimestamp"} {
		if v, ok := md[f]; ok && v != nil {
			md[f] = "<time>"
		}
	}
	if u, ok := md["uid"].(string); ok {
		md["uid"] = n.uids[u]
	}
	if rv, ok := md["resourceVersion"].(string); ok {
		if r, ok := n.ranks[rv]; ok {
			md["resourceVersion"] = r
		}
	}
	n.replaceGenerated(m)
	if refs, ok := md["ownerReferences"].([]any); ok {
		for _, r := range refs {
			if ref, ok := r.(map[string]any); ok {
				if u, ok := ref["uid"].(string); ok {
					ref["uid"] = n.uids[u]
				}
			}
		}
	}
	return m
}

// finalized reports whether o, the answer to a write, is a deleting object without
// finalizers: the write deleted it.
func finalized(o client.Object) bool {
	if o.GetDeletionTimestamp() == nil || len(o.GetFinalizers()) > 0 {
		return false
	}
	ns, ok := o.(*corev1.Namespace)
	return !ok || len(ns.Spec.Finalizers) == 0
}

// replaceGenerated replaces every string value that is a generated name (such as a
// namespace's kubernetes.io/metadata.name label).
func (n *normaliser) replaceGenerated(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok {
				if g, ok := n.gen[s]; ok {
					x[k] = g
				}
				continue
			}
			n.replaceGenerated(e)
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok {
				if g, ok := n.gen[s]; ok {
					x[i] = g
				}
				continue
			}
			n.replaceGenerated(e)
		}
	}
}

func (n *normaliser) error(err error) *ErrorOutcome {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return &ErrorOutcome{Text: n.text(err.Error())}
	}
	s := st.Status()
	out := &ErrorOutcome{Code: s.Code, Reason: s.Reason, Message: n.text(s.Message)}
	if n.tol.UIDPreconditionStorageError {
		out.Message = storageErrorRE.ReplaceAllString(out.Message, "")
	}
	if n.tol.AlreadyExistsBeingDeleted && s.Reason == metav1.StatusReasonAlreadyExists {
		out.Message = strings.TrimPrefix(out.Message, "object is being deleted: ")
	}
	if n.tol.UnservedNotFoundDetails && s.Code == 404 && s.Message == "the server could not find the requested resource" {
		return out
	}
	if d := s.Details; d != nil {
		c := d.DeepCopy()
		if n.tol.AdmissionNamesGenerateName && c.Name == "gen-" {
			c.Name = ""
			out.Message = strings.Replace(out.Message, ` "gen-" is forbidden`, " is forbidden", 1)
		}
		c.Name = n.text(c.Name)
		if c.UID != "" {
			c.UID = "uid"
		}
		for i := range c.Causes {
			c.Causes[i].Message = n.text(c.Causes[i].Message)
		}
		if n.tol.DuplicateCauses {
			c.Causes = slices.Compact(c.Causes)
		}
		sortInvalidCauses(out, c)
		out.Details = c
	}
	return out
}

// sortInvalidCauses puts the causes of an Invalid error, and the list in its
// message, in field order. kube-apiserver's schema validator walks an object's
// properties in Go map order (kube-openapi validate/object_validator.go), so two
// invalid fields are reported in either order from one request to the next; the
// model lists them in field order. The message is rebuilt only when it is the
// causes' list as kube-apiserver writes it, so any other difference still shows.
func sortInvalidCauses(out *ErrorOutcome, d *metav1.StatusDetails) {
	if out.Reason != metav1.StatusReasonInvalid || len(d.Causes) < 2 {
		return
	}
	list := func() string {
		parts := make([]string, len(d.Causes))
		for i, c := range d.Causes {
			parts[i] = c.Field + ": " + c.Message
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	prefix, ok := strings.CutSuffix(out.Message, list())
	slices.SortStableFunc(d.Causes, func(a, b metav1.StatusCause) int {
		return strings.Compare(a.Field+"\x00"+string(a.Type)+"\x00"+a.Message, b.Field+"\x00"+string(b.Type)+"\x00"+b.Message)
	})
	if ok {
		out.Message = prefix + list()
	}
}

var (
	storageErrorRE = regexp.MustCompile(`StorageError: invalid object, Code: 4, Key: [^,]*, ResourceVersion: 0, AdditionalErrorMsg: `)
	uidRE          = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// resourceVersions appear in precondition messages as "ResourceVersion in
	// precondition: 5", "... in object meta: 6", "... in the precondition (5)", "... in
	// record (6)".
	rvRE = regexp.MustCompile(`(ResourceVersion in [a-z ]+(?:: |\())(\d+)`)
)

// text replaces uids, generated names and resourceVersions in a message.
func (n *normaliser) text(s string) string {
	for g, alias := range n.gen { // generated names are distinct and of one length
		s = strings.ReplaceAll(s, g, alias)
	}
	s = uidRE.ReplaceAllStringFunc(s, func(w string) string {
		if u, ok := n.uids[w]; ok {
			return u
		}
		return "uid-?"
	})
	return rvRE.ReplaceAllStringFunc(s, func(w string) string {
		m := rvRE.FindStringSubmatch(w)
		if r, ok := n.ranks[m[2]]; ok {
			return m[1] + r
		}
		return m[1] + "rv-?" // a version the client never saw (the server's own, or a deletion's)
	})
}
