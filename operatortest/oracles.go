package operatortest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The generic oracles: on by default, judged on every run with no code of the
// test's (Options.Disable turns one off by name). The kernel adds its own
// verdicts to every run: hot-loop (a controller reconciling or writing one
// object 20 times a second for 10 s: not quiescent), livelock and
// reconcile-panic.
const (
	// Converges: the objects of the judged kinds at the end of a run equal
	// those of the fault-free run of the same workload (Sieve's end-state
	// oracle), modulo uids, resourceVersions, generations, timestamps, the
	// suffixes of generated names, the order of status.conditions (a list
	// keyed by type), and Events.
	Converges = "converges"
	// Terminates: nothing is left deleting (a stuck finalizer, a namespace
	// stuck Terminating) at the end of the heal budget.
	Terminates = "terminates"
	// NoOrphans: no object of the judged kinds has an ownerReference to an
	// owner that is gone, once the garbage collector has had the heal budget.
	NoOrphans = "no-orphans"
	// NoErrorAtRest: no object's last reconcile of the run ended in an error:
	// a controller still failing at the end of the heal budget is stuck. A
	// transient error that a retry got past (a 409 Conflict of optimistic
	// concurrency, say) is no violation, nor is one of an incarnation that
	// crashed since (the next one starts afresh, and reconciles the object
	// again if it still exists).
	NoErrorAtRest = "no-error-at-rest"
	// InterleavingsAgree: the fault-free runs of the workload under two
	// schedules (the plan's seed and another) end in the same state, modulo
	// what converges ignores (Kamera's check that converged states agree
	// across interleavings). A violation names a race of the controllers
	// with each other or with the workload, whatever the faults.
	InterleavingsAgree = "interleavings-agree"
	// UpdateSummaries: no object of the judged kinds was created or deleted
	// more times than in the fault-free run of the same workload (Sieve's
	// update summaries): a fault that makes an operator delete and re-create
	// what it manages shows here even when the end state agrees. Fewer is no
	// violation: a fault may delay an operator past the workload's deletion
	// of what it would have made.
	UpdateSummaries = "update-summaries"
)

// oracleNames are the generic oracles' names, as Options.Disable takes them
// (the kernel's verdicts are named in KernelVerdicts).
var oracleNames = []string{Converges, UpdateSummaries, InterleavingsAgree, Terminates, NoOrphans, NoErrorAtRest}

func (w *world) oracles(ref *snapshot) []check.Property {
	var out []check.Property
	on := func(name string) bool { return !slices.Contains(w.o.Disable, name) }
	// got is the run's end state, taken once for the oracles that compare it.
	var snap *snapshot
	var of *check.Run
	got := func(r *check.Run) *snapshot {
		if of != r {
			snap, of = snapshotOf(r, w.kinds), r
		}
		return snap
	}
	if on(Converges) && ref != nil {
		out = append(out, check.Eventually{Property: Converges, Desired: func(r *check.Run) error {
			return ref.diff(got(r))
		}})
	}
	if on(UpdateSummaries) && ref != nil {
		out = append(out, check.Eventually{Property: UpdateSummaries, Desired: func(r *check.Run) error {
			return ref.diffChanges(got(r))
		}})
	}
	if on(Terminates) {
		out = append(out, check.Terminates{})
	}
	if on(NoOrphans) && !w.o.NoBuiltinControllers {
		out = append(out, check.Eventually{Property: NoOrphans, Desired: func(r *check.Run) error {
			return orphans(r, w.kinds)
		}})
	}
	if on(NoErrorAtRest) {
		out = append(out, check.Eventually{Property: NoErrorAtRest, Desired: errorAtRest})
	}
	return out
}

func errorAtRest(r *check.Run) error {
	type key struct{ process, controller, object string }
	last := map[key]trace.Step{}
	var order []key
	for _, s := range r.Steps {
		if s.Op == "crash" {
			// The incarnation's queue died with it: its errors are not at
			// rest (the next one reconciles what still exists afresh).
			for k := range last { // lint:order-independent deletes only
				if k.process == s.Process {
					delete(last, k)
				}
			}
			continue
		}
		if s.Op != "result" {
			continue
		}
		k := key{s.Process, s.Controller, s.Object}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = s
	}
	for _, k := range order {
		if s, ok := last[k]; ok && strings.HasPrefix(s.Result, "error:") {
			return fmt.Errorf("%s/%s's last reconcile of %s, at %v (the heal was at %v), ended in %s", s.Process, s.Controller, s.Object, s.At, r.HealAt, s.Result)
		}
	}
	return nil
}

func orphans(r *check.Run, kinds []schema.GroupVersionKind) error {
	uids := map[types.UID]bool{}
	for _, gvk := range r.Kinds {
		for _, o := range r.Objects(gvk) {
			uids[o.GetUID()] = true
		}
	}
	for _, gvk := range kinds {
		for _, o := range r.Objects(gvk) {
			for _, ref := range o.GetOwnerReferences() {
				if !uids[ref.UID] {
					return fmt.Errorf("%s %s is owned by %s %s, which is gone", gvk.Kind, client.ObjectKeyFromObject(o), ref.Kind, ref.Name)
				}
			}
		}
	}
	return nil
}

// snapshot is the normalized end state of a run: object key -> content.
type snapshot struct {
	objects map[string]string
	keys    []string
	// changes counts, per object (keyed as objects), the creates and deletes
	// the apiserver committed: Sieve's update summaries.
	changes map[string]*createsDeletes
}

type createsDeletes struct{ creates, deletes int }

func (c createsDeletes) String() string {
	return fmt.Sprintf("created %d time%s, deleted %d time%s", c.creates, plural(c.creates), c.deletes, plural(c.deletes))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func takeSnapshot(c *cluster.Cluster, kinds []schema.GroupVersionKind) *snapshot {
	return snapshotOf(c.Observed(), kinds)
}

func snapshotOf(r *check.Run, kinds []schema.GroupVersionKind) *snapshot {
	s := &snapshot{objects: map[string]string{}, changes: map[string]*createsDeletes{}}
	for _, ev := range r.Log {
		if ev.Type != watch.Added && ev.Type != watch.Deleted || !slices.Contains(kinds, ev.GVK) {
			continue
		}
		key := objectKey(ev.GVK, ev.Object)
		c := s.changes[key]
		if c == nil {
			c = &createsDeletes{}
			s.changes[key] = c
		}
		if ev.Type == watch.Added {
			c.creates++
		} else {
			c.deletes++
		}
	}
	for _, gvk := range kinds {
		for _, o := range r.Objects(gvk) {
			key, content := normalize(gvk, o)
			s.objects[key] = content
			s.keys = append(s.keys, key)
		}
	}
	slices.Sort(s.keys)
	return s
}

// objectKey names an object as the oracles compare it: a generated name by
// its prefix.
func objectKey(gvk schema.GroupVersionKind, o client.Object) string {
	name := o.GetName()
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(name, g) {
		name = g + "*"
	}
	return gvk.Kind + " " + o.GetNamespace() + "/" + name
}

// normalize is an object's key and content with what legitimately differs
// between two runs of one workload masked.
func normalize(gvk schema.GroupVersionKind, o client.Object) (string, string) {
	key := objectKey(gvk, o)
	b, err := json.Marshal(o)
	if err != nil {
		return key, "unencodable"
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, f := range []string{"generation", "creationTimestamp", "managedFields", "name"} {
			delete(md, f)
		}
	}
	if st, ok := m["status"].(map[string]any); ok {
		delete(st, "observedGeneration")
		// Conditions are a list keyed by type (+listType=map, listMapKey
		// type): their order is that of the writes (SetDeploymentCondition
		// and meta.SetStatusCondition append a changed one), not state.
		if cs, ok := st["conditions"].([]any); ok {
			slices.SortStableFunc(cs, func(a, b any) int { return strings.Compare(conditionType(a), conditionType(b)) })
		}
	}
	maskTimes(m)
	// uids and resourceVersions, the object's own and those of the objects it
	// refers to (ownerReferences, a status's ObjectReferences): their values
	// count the objects and writes that came before, which differ between any
	// two runs.
	dropKeys(m, "uid", "resourceVersion")
	out, _ := json.Marshal(m)
	return key, string(out)
}

func conditionType(c any) string {
	m, _ := c.(map[string]any)
	t, _ := m["type"].(string)
	return t
}

// maskTimes replaces every string that is an RFC 3339 time with "<time>".
// dropKeys deletes the keys from every map in v, at any depth.
func dropKeys(v any, keys ...string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(x, k)
		}
		for _, e := range x { // lint:order-independent each value is changed alone
			dropKeys(e, keys...)
		}
	case []any:
		for _, e := range x {
			dropKeys(e, keys...)
		}
	}
}

func maskTimes(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x { // lint:order-independent each value is masked alone
			if s, ok := e.(string); ok && isTime(s) {
				x[k] = "<time>"
				continue
			}
			maskTimes(e)
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && isTime(s) {
				x[i] = "<time>"
				continue
			}
			maskTimes(e)
		}
	}
}

func isTime(s string) bool {
	if len(s) < 20 || s[4] != '-' || s[10] != 'T' {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// diff names the first difference between the reference snapshot and got.
func (ref *snapshot) diff(got *snapshot) error {
	return ref.diffAs(got, "the fault-free run of the same workload", "this run")
}

// diffAs is diff with the two runs named.
func (ref *snapshot) diffAs(got *snapshot, refName, gotName string) error {
	for _, k := range ref.keys {
		g, ok := got.objects[k]
		switch {
		case !ok:
			return fmt.Errorf("%s exists after %s, not after %s", k, refName, gotName)
		case g != ref.objects[k]:
			return fmt.Errorf("%s differs between %s and %s:\n    %s: %s\n    %s: %s", k, refName, gotName,
				refName, ref.objects[k], gotName, g)
		}
	}
	for _, k := range got.keys {
		if _, ok := ref.objects[k]; !ok {
			return fmt.Errorf("%s exists after %s, not after %s", k, gotName, refName)
		}
	}
	return nil
}

// diffChanges names the first object created or deleted a different number
// of times in got than in the reference.
func (ref *snapshot) diffChanges(got *snapshot) error {
	keys := make([]string, 0, len(ref.changes)+len(got.changes))
	for k := range ref.changes { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	for k := range got.changes { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		var r, g createsDeletes
		if c := ref.changes[k]; c != nil {
			r = *c
		}
		if c := got.changes[k]; c != nil {
			g = *c
		}
		// Only churn the fault added counts: an operator that, delayed by
		// a fault, never made an object the workload deleted first did less,
		// not wrong (and one that misses needed work ends elsewhere, which
		// converges sees).
		if g.creates > r.creates || g.deletes > r.deletes {
			return fmt.Errorf("%s was %s in the fault-free run of the same workload, %s in this run", k, r, g)
		}
	}
	return nil
}

// userProperty is a test's Property as a check.Property.
type userProperty struct {
	p Property
	c *cluster.Cluster
}

func (u userProperty) Name() string { return u.p.Name }

func (u userProperty) Check(r *check.Run) check.Verdict {
	return propertyVerdict(u.p.Name, u.p.Check(&History{c: u.c, run: r}), r.End)
}

// History is what a Property judges: the final state (read as cluster admin)
// and what happened.
type History struct {
	c   *cluster.Cluster
	run *check.Run
}

// Get reads an object of the final state.
func (h *History) Get(key client.ObjectKey, obj client.Object) error { return h.c.Get(key, obj) }

// List lists objects of the final state.
func (h *History) List(list client.ObjectList, opts ...client.ListOption) error {
	return h.c.List(list, opts...)
}

// Steps is the trace of the run: every client call, reconcile, result, log
// line, crash and restart, with its virtual time.
func (h *History) Steps() []trace.Step { return h.run.Steps }

// HealAt is when the fault phase ended; End is when the run ended.
func (h *History) HealAt() time.Duration { return h.run.HealAt }

// End is when the run ended.
func (h *History) End() time.Duration { return h.run.End }

// Run is the run as the kernel's properties see it (the apiserver's watch log
// included: every committed change, in order).
func (h *History) Run() *check.Run { return h.run }

func createNamespace(ctx context.Context, c *cluster.Cluster, ns string) error {
	err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
