package verdict

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/cause"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/check"
)

// judgedBy is a generic oracle judged by a function of the run.
type judgedBy struct {
	name  string
	judge func(r *check.Run) check.Verdict
}

func (j judgedBy) Name() string                     { return j.name }
func (j judgedBy) Check(r *check.Run) check.Verdict { return j.judge(r) }

func On(w *world.World, name string) bool { return !slices.Contains(w.Opts.Disable, name) }

// oracles are the generic oracles of a run judged against refs, the
// fault-free runs of the same workload (none: a reference run itself).
func Oracles(w *world.World, refs []*Reference) []check.Property {
	var out []check.Property
	// got is the run's end state, taken once for the oracles that compare it.
	var snap *Snapshot
	var of *check.Run
	got := func(r *check.Run) *Snapshot {
		if of != r {
			snap, of = SnapshotOf(w, r), r
		}
		return snap
	}
	if On(w, world.Converges) && len(refs) > 0 {
		out = append(out, judgedBy{world.Converges, func(r *check.Run) check.Verdict { return Converges(w, refs, got(r), r.End) }})
	}
	if On(w, world.UpdateSummaries) && len(refs) > 0 {
		out = append(out, judgedBy{world.UpdateSummaries, func(r *check.Run) check.Verdict { return UpdateSummaries(w, refs, got(r), r.End) }})
	}
	if On(w, world.Terminates) {
		out = append(out, judgedBy{world.Terminates, func(r *check.Run) check.Verdict { return Terminates(w, refs, got(r), r) }})
	}
	if On(w, world.NoOrphans) && !w.Opts.NoBuiltinControllers {
		out = append(out, check.Eventually{Property: world.NoOrphans, Desired: func(r *check.Run) error {
			return orphans(r, collectedOf(w, got(r), refs))
		}})
	}
	if On(w, world.NoErrorAtRest) {
		out = append(out, judgedBy{world.NoErrorAtRest, func(r *check.Run) check.Verdict { return NoErrorAtRest(refs, got(r), r) }})
	}
	if On(w, world.WritesAtRest) {
		out = append(out, judgedBy{world.WritesAtRest, func(r *check.Run) check.Verdict { return JudgeWritesAtRest(w, refs, got(r)) }})
	}
	return out
}

// AtRest is a controller's last reconcile of an object ended in an error,
// by its cause (package cause).
type AtRest = cause.AtRest

// ErrorsAtRest are a run's errors at rest (cause.ErrorsAtRest).
func ErrorsAtRest(r *check.Run, c *canon.Tokens) []AtRest { return cause.ErrorsAtRest(r, c) }

// noErrorAtRest: a last reconcile that ended in an error is a violation
// unless a fault-free run of the same workload also ends in that error on
// that object (the workload's doing: a dependency the user deleted, which
// the operator reports by failing until the user fixes it).
func NoErrorAtRest(refs []*Reference, got *Snapshot, r *check.Run) check.Verdict {
	var shared, excused []string
	for _, e := range ErrorsAtRest(r, got.Canon) {
		var also string
		for _, ref := range refs {
			for _, re := range ref.Snap.AtRest {
				if re.Key == e.Key {
					also = re.Err
				}
			}
			if also == e.Err {
				break
			}
		}
		s := e.Step
		switch {
		case also == e.Err:
			shared = appendNew(shared, fmt.Sprintf("%s/%s's last reconcile of %s ends in %s, as in the fault-free run of the same workload", s.Process, s.Controller, s.Object, s.Result))
			excused = append(excused, SharedError)
		case also != "" && slices.ContainsFunc(refs, func(ref *Reference) bool { return slices.Contains(ref.Snap.errorsMet[e.Key], e.Err) }):
			// The fault-free run fails on this object for good too, and
			// met this error on the way: an operator that retries a failing
			// operation cycles through its errors (the cause, then "still
			// cleaning up the last attempt"), and which one the end falls
			// on is the schedule's doing.
			shared = appendNew(shared, fmt.Sprintf("%s/%s's last reconcile of %s ends in %s, an error the fault-free run of the same workload, which ends failing on it too, also met", s.Process, s.Controller, s.Object, s.Result))
			excused = append(excused, ErrorMet)
		case e.User && (e.Refused || slices.ContainsFunc(refs, func(ref *Reference) bool { return ref.Snap.met(e.Err) })):
			// The user's invalid value: the API refused it, or a fault-free
			// run failed on it too, in any controller (excuses.go).
			shared = appendNew(shared, fmt.Sprintf("%s/%s's last reconcile of %s ends in %s, %s", s.Process, s.Controller, s.Object, s.Result, e.Err))
			excused = append(excused, UserValue)
		case also != "":
			return check.Verdict{Property: world.NoErrorAtRest, At: r.End, Detail: fmt.Sprintf("%s/%s's last reconcile of %s, at %v (the heal was at %v), ended in %s; the fault-free run of the same workload ends in %s", s.Process, s.Controller, s.Object, s.At, r.HealAt, s.Result, also)}
		default:
			return check.Verdict{Property: world.NoErrorAtRest, At: r.End, Detail: fmt.Sprintf("%s/%s's last reconcile of %s, at %v (the heal was at %v), ended in %s", s.Process, s.Controller, s.Object, s.At, r.HealAt, s.Result)}
		}
	}
	return check.Verdict{Property: world.NoErrorAtRest, Holds: true, Detail: strings.Join(shared, "; ")}.Excuse(excused...)
}

// writtenBy is whether o's field managers are all of processes.
func writtenBy(o client.Object, processes []string) bool {
	mf := o.GetManagedFields()
	return len(mf) > 0 && !slices.ContainsFunc(mf, func(e metav1.ManagedFieldsEntry) bool { return !slices.Contains(processes, e.Manager) })
}

// met is whether any reconcile of the run ended in err (by its cause).
func (s *Snapshot) met(err string) bool {
	for _, errs := range s.errorsMet { // lint:order-independent a check of each
		if slices.Contains(errs, err) {
			return true
		}
	}
	return false
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
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

// snapshot is a run as the differential oracles compare it: the end state of
// every kind in its watch log, canonical (equivalence.go), the creates and
// deletes of each object, the kinds the operator touched and its errors at
// rest.
type Snapshot struct {
	World *world.World
	Canon *canon.Tokens
	// kinds are the kinds of the watch log, in order of first appearance;
	// raw their objects at the end.
	Kinds []schema.GroupVersionKind
	Raw   map[schema.GroupVersionKind][]client.Object
	// touched are the kinds the operator's processes read or wrote.
	Touched map[schema.GroupVersionKind]bool
	// changes counts, per object (Kind namespace/canonical name), the creates
	// and deletes the apiserver committed (Sieve's update summaries), but
	// those of collected.
	Changes map[schema.GroupVersionKind]map[string]*createsDeletes
	// collected counts, per object, the dependents created while each of
	// their owners was gone or being deleted, and then deleted (by the
	// garbage collector, as its rules say), before the heal's grace ended.
	collected []string
	// temporary are the objects of generated name an operator process
	// created, and only it wrote, that are gone at the end, by key
	// (UpdateSummaries).
	temporary map[string]bool
	// atRest are the run's errors at rest (kept for a reference run), and
	// outputs what each controller's reconciles of an object wrote
	// (frozen.go).
	AtRest  []AtRest
	Outputs map[string][]string
	// statusWrites are what each controller's status writes to the object
	// it reconciles changed, by how the reconcile ended (frozen.go). Only a
	// controller failing on an object by design reads them, so they are
	// read from run on first use (statusWrites); a test may set them.
	StatusWrites     map[string]*statusWrites
	run              *check.Run
	statusWritesOnce sync.Once
	// errorsMet are the errors of every reconcile (errorsMet).
	errorsMet map[string][]string
	// userDeleted is when the workload first deleted an object (-1: never).
	userDeleted time.Duration
	// userEdited is when the workload first changed an object (-1: never).
	userEdited time.Duration
	// ended are the ended lifetimes of pods made from a controller owner's
	// template, by key, and templates the templates each such owner held,
	// in order (rollout.go).
	ended     map[string][]podLife
	templates map[string][]string
	State     map[schema.GroupVersionKind]*KindState
	// deleteTook is, per object, the longest its deletion took, from its
	// deletionTimestamp's event to its Deleted event (terminates.go).
	deleteTook map[string]time.Duration
	// rest are the operator's writes after the heal (atrest.go).
	Rest *restWrites
	// Backoffs are the keys the cluster's controllers hold in back-off at
	// the end (backoff.go).
	Backoffs []check.Backoff
}

// kindState is the canonical end state of one kind.
type KindState struct {
	Keys  []string
	Text  map[string]string
	Value map[string]any
}

type createsDeletes struct {
	Creates, deletes int
	deleted          time.Duration // the last delete's instant (churn.go)
}

func (c createsDeletes) String() string {
	return fmt.Sprintf("created %d time%s, deleted %d time%s", c.Creates, world.Plural(c.Creates), c.deletes, world.Plural(c.deletes))
}

// healGrace is how long after the heal a dependent re-created for an owner
// being deleted is still the stall's doing: a reconcile that read its cache
// just before the heal writes just after it (watch delivery takes
// milliseconds once the faults are gone).
const healGrace = time.Second

func SnapshotOf(w *world.World, r *check.Run) *Snapshot {
	s := &Snapshot{World: w, Canon: canon.NewTokens(r.Log), Raw: map[schema.GroupVersionKind][]client.Object{},
		Touched: map[schema.GroupVersionKind]bool{}, Changes: map[schema.GroupVersionKind]map[string]*createsDeletes{},
		State: map[schema.GroupVersionKind]*KindState{}}
	byRV := map[uint64]schema.GroupVersionKind{}
	byKind := map[string][]schema.GroupVersionKind{}
	// Owners as the collector sees them: present, or being deleted.
	const present, deleting = 1, 2
	owners := map[types.UID]int{}
	type pending struct {
		gvk schema.GroupVersionKind
		key string
	}
	forGone := map[types.UID]pending{} // created for (or re-owned to) gone owners, not yet deleted
	var forGoneOrder []types.UID
	counted := map[types.UID]bool{} // live objects whose creation counts
	// doomed reports whether an object with these owner references is one
	// the collector deletes: it has owners and none is present (an owner
	// that was itself made for a gone owner is doomed too: the collector
	// takes the whole subtree, a StatefulSet made for a deleted custom
	// resource, then its Pod), written before the heal's grace ended.
	doomed := func(refs []metav1.OwnerReference, at time.Duration) bool {
		return len(refs) > 0 && (r.HealAt == 0 || at <= r.HealAt+graceOf(r.Plan)) &&
			!slices.ContainsFunc(refs, func(ref metav1.OwnerReference) bool {
				_, doomed := forGone[ref.UID]
				return owners[ref.UID] == present && !doomed
			})
	}
	count := func(gvk schema.GroupVersionKind, key string) *createsDeletes {
		m := s.Changes[gvk]
		if m == nil {
			m = map[string]*createsDeletes{}
			s.Changes[gvk] = m
		}
		c := m[key]
		if c == nil {
			c = &createsDeletes{}
			m[key] = c
		}
		return c
	}
	s.deleteTook = map[string]time.Duration{}
	deletionBegan := map[types.UID]time.Time{}
	// The operator's creates: by the resourceVersions its creates got back,
	// or (a create whose answer it never read) by the field manager that
	// made the object, the process's name.
	byOperator := map[uint64]bool{}
	for _, st := range r.Steps {
		if st.Op == "create" && st.RVWritten > 0 && slices.Contains(w.OperatorProcesses(), st.Process) {
			byOperator[st.RVWritten] = true
		}
	}
	s.temporary = map[string]bool{}
	operatorMade := map[types.UID]bool{}
	for _, ev := range r.Log {
		switch uid := ev.Object.GetUID(); {
		case ev.Type == watch.Added && ev.Object.GetGenerateName() != "" && (byOperator[ev.ResourceVersion] || writtenBy(ev.Object, w.OperatorProcesses())):
			operatorMade[uid] = true
		case !writtenBy(ev.Object, w.OperatorProcesses()):
			delete(operatorMade, uid) // a controller of the cluster acted on it (a Job's status)
		case ev.Type == watch.Deleted && operatorMade[uid]:
			s.temporary[s.Key(ev.GVK, ev.Object)] = true
		}
	}
	for _, ev := range r.Log {
		gvk, o := ev.GVK, ev.Object
		if _, ok := s.Raw[gvk]; !ok {
			s.Raw[gvk] = nil
			s.Kinds = append(s.Kinds, gvk)
			byKind[gvk.Kind] = append(byKind[gvk.Kind], gvk)
		}
		byRV[ev.ResourceVersion] = gvk
		uid := o.GetUID()
		key := s.Key(gvk, o)
		if _, ok := deletionBegan[uid]; !ok && o.GetDeletionTimestamp() != nil && ev.Type != watch.Deleted {
			deletionBegan[uid] = ev.At
		}
		if began, ok := deletionBegan[uid]; ok && ev.Type == watch.Deleted {
			s.deleteTook[key] = max(s.deleteTook[key], ev.At.Sub(began))
			delete(deletionBegan, uid)
		}
		if w.IsHistory(gvk, o) { // a record of what happened, not compared (history.go)
			switch ev.Type {
			case watch.Added:
				owners[uid] = present
			case watch.Deleted:
				delete(owners, uid)
			}
			continue
		}
		switch ev.Type {
		case watch.Added:
			owners[uid] = present
			if o.GetDeletionTimestamp() != nil {
				owners[uid] = deleting
			}
			if doomed(o.GetOwnerReferences(), ev.At.Sub(r.Start)) {
				forGone[uid] = pending{gvk, key}
				forGoneOrder = append(forGoneOrder, uid)
				continue
			}
			count(gvk, key).Creates++
			counted[uid] = true
		case watch.Modified:
			if o.GetDeletionTimestamp() != nil {
				owners[uid] = deleting
			}
			// A dependent re-owned to a gone owner is doomed as one made for
			// it: a reconcile that reads a deleted owner from a stale cache
			// sets the owner reference of the live owner's child of the same
			// name to the old uid (controllerutil.SetControllerReference
			// tells owners apart by kind and name), and the collector
			// deletes the child. Its lifetime is the collector's rule at
			// work, not counted unless it is never collected; one re-owned to
			// a present owner before that counts again.
			_, isForGone := forGone[uid]
			switch d := doomed(o.GetOwnerReferences(), ev.At.Sub(r.Start)); {
			case d && counted[uid]:
				count(gvk, key).Creates--
				delete(counted, uid)
				forGone[uid] = pending{gvk, key}
				forGoneOrder = append(forGoneOrder, uid)
			case !d && isForGone && len(o.GetOwnerReferences()) > 0:
				delete(forGone, uid)
				count(gvk, key).Creates++
				counted[uid] = true
			}
		case watch.Deleted:
			delete(owners, uid)
			delete(counted, uid)
			if _, ok := forGone[uid]; ok {
				delete(forGone, uid)
				s.collected = append(s.collected, key)
				continue
			}
			c := count(gvk, key)
			c.deletes++
			c.deleted = ev.At.Sub(r.Start)
		}
	}
	// A dependent made for a gone owner and never collected counts (and
	// no-orphans judges it).
	for _, uid := range forGoneOrder {
		if p, ok := forGone[uid]; ok {
			count(p.gvk, p.key).Creates++
			delete(forGone, uid) // listed again if re-owned twice
		}
	}
	for _, gvk := range s.Kinds {
		s.Raw[gvk] = w.WithoutHistory(gvk, r.Objects(gvk))
	}
	// The kinds the operator's processes touched: a write names its kind by
	// the resourceVersion it wrote, a read by its kind's name.
	for _, st := range r.Steps {
		if !w.Operators[st.Process] {
			continue
		}
		op, _, _ := strings.Cut(strings.TrimPrefix(st.Op, "cached-"), "/")
		switch op {
		case "get", "list", "create", "update", "patch", "delete", "deletecollection":
		default:
			continue
		}
		if gvk, ok := byRV[st.RVWritten]; ok && st.RVWritten != 0 {
			s.Touched[gvk] = true
			continue
		}
		kind, _, _ := strings.Cut(st.Object, " ")
		gvks, ok := byKind[kind]
		if !ok {
			gvks = byKind[strings.TrimSuffix(kind, "List")]
		}
		for _, gvk := range gvks {
			s.Touched[gvk] = true
		}
	}
	s.AtRest = ErrorsAtRest(r, s.Canon)
	s.errorsMet = cause.Met(r, s.Canon)
	s.Outputs = OutputsOf(r.Steps, s.Canon)
	s.run = r // StatusWrites, on first use
	s.userDeleted = firstUserDeletion(r.Steps)
	s.userEdited = firstUserEdit(r.Steps)
	s.ended, s.templates = rolloutsOf(s, r.Log)
	s.Rest = s.writesAtRest(r)
	s.Backoffs = slices.Clone(r.Backoffs)
	return s
}

// key names an object as the oracles compare it: kind, namespace and
// canonical name (a generated name by its prefix and place).
func (s *Snapshot) Key(gvk schema.GroupVersionKind, o client.Object) string {
	return canon.ObjectKey(gvk.Kind, o.GetNamespace(), s.Canon.Name(o))
}

// machinery are kinds the manager itself writes for the operator, not its
// reconcilers: leader election's Leases and the recorder's Events. They are
// judged only when the test's objects are of those kinds.
var machinery = []schema.GroupVersionKind{{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"},
	{Version: "v1", Kind: "Event"}, {Group: "events.k8s.io", Version: "v1", Kind: "Event"}}

// judged are the kinds the differential oracles compare across snaps: the
// CRDs' and the test's objects' kinds, and every kind an operator process
// read or wrote in any of them.
func Judged(w *world.World, snaps ...*Snapshot) []schema.GroupVersionKind {
	out := slices.Clone(w.Kinds)
	var more []schema.GroupVersionKind
	for _, s := range snaps {
		for _, gvk := range s.Kinds {
			if s.Touched[gvk] && !slices.Contains(out, gvk) && !slices.Contains(more, gvk) && !slices.Contains(machinery, gvk) {
				more = append(more, gvk)
			}
		}
	}
	slices.SortFunc(more, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return append(out, more...)
}

// collectedOf are the judged kinds the garbage collector collects: those
// no-orphans judges.
func collectedOf(w *world.World, got *Snapshot, refs []*Reference) []schema.GroupVersionKind {
	snaps := []*Snapshot{got}
	for _, r := range refs {
		snaps = append(snaps, r.Snap)
	}
	var out []schema.GroupVersionKind
	for _, gvk := range Judged(w, snaps...) {
		if slices.Contains(w.Collected, gvk) {
			out = append(out, gvk)
		}
	}
	return out
}

var namespaceGVK = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}

// namespaceDeleting reports whether namespace ns is deleting (Terminating)
// at the end of s.
func (s *Snapshot) namespaceDeleting(ns string) bool {
	if ns == "" {
		return false
	}
	for _, o := range s.Raw[namespaceGVK] {
		if o.GetName() == ns {
			return o.GetDeletionTimestamp() != nil
		}
	}
	return false
}

// of is the canonical end state of gvk.
func (s *Snapshot) Of(gvk schema.GroupVersionKind) *KindState {
	if k, ok := s.State[gvk]; ok {
		return k
	}
	k := &KindState{Text: map[string]string{}, Value: map[string]any{}}
	for _, o := range s.Raw[gvk] {
		key := s.Key(gvk, o)
		v := s.Normalize(gvk, o)
		k.Keys = append(k.Keys, key)
		k.Value[key] = v
		k.Text[key] = canon.Encode(v)
	}
	slices.Sort(k.Keys)
	s.State[gvk] = k
	return k
}

// normalize is an object's content with what legitimately differs between
// two runs of one workload made equal (equivalence.go).
func (s *Snapshot) Normalize(gvk schema.GroupVersionKind, o client.Object) any {
	b, err := json.Marshal(o)
	if err != nil {
		return "unencodable"
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if md, ok := m["metadata"].(map[string]any); ok {
		// The key names it; generation counts spec writes; managedFields
		// record who wrote when.
		for _, f := range []string{"generation", "managedFields", "name"} {
			delete(md, f)
		}
	}
	// resourceVersions and observed generations, the object's own and those
	// of what it refers to, count the writes before them.
	dropKeys(m, "resourceVersion", "observedGeneration")
	if st, ok := m["status"].(map[string]any); ok && gvk.Group == "apps" {
		// A Deployment's, StatefulSet's or DaemonSet's collisionCount counts
		// the names its controller found still held when it named a child
		// by hash (generated.go's hashLabels): how many races with the
		// garbage collector, as the hash names do.
		delete(st, "collisionCount")
	}
	if md, ok := m["metadata"].(map[string]any); ok && gvk.Group == "apps" {
		// A Deployment's revision (and a DaemonSet's template generation)
		// counts the templates its controller rolled out: the generation of
		// the template, which counts the template writes before it, and an
		// operator that saw an intermediate spec of the user's wrote one
		// more (the config-checksum pattern's false interleavings-agree, 2
		// against 3).
		if an, ok := md["annotations"].(map[string]any); ok {
			for _, k := range templateCounters {
				delete(an, k)
			}
			if len(an) == 0 {
				delete(md, "annotations")
			}
		}
	}
	s.Canon.Binding(gvk, o, m)
	s.Canon.Value(m)
	s.World.Nondet.Mask(gvk.Kind, m)
	canon.SortLists(m, s.World.Shapes.For(gvk), "")
	return m
}

// templateCounters are the annotations in which kube-controller-manager's
// apps controllers count the templates of what they manage
// (deployment.kubernetes.io/revision, on a Deployment and its ReplicaSets;
// a DaemonSet's deprecated.daemonset.template.generation).
var templateCounters = []string{"deployment.kubernetes.io/revision", "deprecated.daemonset.template.generation"}

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

// named is a snapshot with the name a report gives its run, and the cases
// of the table (excuses.go) a difference it excuses is named by (none: the
// plan's own fault-free run, which excuses nothing).
type named struct {
	name    string
	snap    *Snapshot
	late    bool
	draws   bool
	excuses []string
}

func refNames(refs []*Reference) []named {
	var out []named
	for i, r := range refs {
		name := "the fault-free run of the same workload"
		switch {
		case r.Late && r.After > 0:
			name = fmt.Sprintf("the fault-free run of the same workload with the operator starting after the step at %v", r.After)
		case r.Late:
			name = "the fault-free run of the same workload with the operator late (its watches deliver nothing until the workload's last step)"
		case r.Downtime:
			name = "the fault-free run of the same workload and the same downtime (the operator stopped cleanly where this run had it down)"
		case r.Draws:
			name = "the fault-free run of the same workload with the operator's random draws from another seed"
		case i > 0:
			name = fmt.Sprintf("the fault-free run of the same workload under another schedule (seed %d)", r.Seed)
		}
		excuses := r.Excuses
		switch {
		case len(excuses) > 0:
		case r.Draws:
			excuses = []string{RandomDraws}
		case i > 0:
			excuses = []string{OtherSchedule}
		}
		out = append(out, named{name, r.Snap, r.Late || r.Downtime, r.Draws, excuses})
	}
	return out
}

// converges judges got's end state against the set of the fault-free end
// states, object by object: an object must exist where every reference has
// it (and not where none has), and its content must be a reference's, but in
// the fields the fault-free runs of the two schedules differ in: those are
// nondeterministic and not held against got. The late reference (refs
// marked late) is a candidate end state only, not a source of learned
// fields.
func Converges(w *world.World, refs []*Reference, got *Snapshot, end time.Duration) check.Verdict {
	rs := refNames(refs)
	fr := Frozen(refs, got)
	fs := FrozenStatus(refs, got)
	bf := BackoffFree(refs, got)
	var skipped, excused []string
	snaps := []*Snapshot{got}
	for _, r := range rs {
		snaps = append(snaps, r.snap)
	}
	for _, gvk := range Judged(w, snaps...) {
		g := got.Of(gvk)
		var keys []string
		keys = append(keys, g.Keys...)
		for _, r := range rs {
			keys = append(keys, r.snap.Of(gvk).Keys...)
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			// A difference from the plan's own fault-free run is what an
			// excuse forgives, and names (excuses.go).
			ownText, ownHas := rs[0].snap.Of(gvk).Text[k]
			gotText, gotHas := g.Text[k]
			differs := gotHas != ownHas || gotText != ownText
			if why, ok := fr[k]; ok {
				skipped = append(skipped, why)
				if differs {
					excused = append(excused, FrozenOutputs)
				}
				continue
			}
			if _, ok := bf.whole[k]; ok {
				if differs {
					excused = append(excused, ClusterBackoff)
				}
				continue
			}
			var have, schedules []named
			for _, r := range rs {
				if _, ok := r.snap.Of(gvk).Text[k]; ok {
					have = append(have, r)
					if !r.late {
						schedules = append(schedules, r)
					}
				}
			}
			gt, ok := g.Text[k]
			switch {
			case (!ok || len(have) == 0) && got.namespaceDeleting(namespaceOf(k)):
				// Its namespace is being deleted here: the namespace
				// controller deletes all it holds, and whether the namespace
				// should be deleting is judged on the Namespace itself.
				excused = append(excused, NamespaceLifetime)
				continue
			case !ok && len(have) == len(rs):
				return check.Verdict{Property: world.Converges, At: end, Detail: fmt.Sprintf("%s exists after %s, not after this run%s", k, have[0].name, madeApart(gvk, k, got, have[0]))}
			case !ok:
				// a fault-free run lacks it too: its existence is not the faults' doing
				if differs {
					i := slices.IndexFunc(rs, func(r named) bool { _, has := r.snap.Of(gvk).Text[k]; return !has })
					excused = append(excused, rs[i].excuses...)
				}
				continue
			case len(have) == 0:
				return check.Verdict{Property: world.Converges, At: end, Detail: fmt.Sprintf("%s exists after this run, not after %s%s", k, rs[0].name, madeApart(gvk, k, got, rs[0]))}
			}
			if i := slices.IndexFunc(have, func(r named) bool { return r.snap.Of(gvk).Text[k] == gt }); i >= 0 {
				if differs {
					excused = append(excused, have[i].excuses...)
				}
				continue
			}
			sh := w.Shapes.For(gvk)
			free := learned(sh, gvk, k, schedules)
			for p := range fs[k] { // lint:order-independent a set is filled
				free[p] = FrozenStatusField
			}
			if bf.status[k] {
				statusPaths(sh, free, g.Value[k])
				for _, r := range have {
					statusPaths(sh, free, r.snap.Of(gvk).Value[k])
				}
			}
			var first string
			var by []string
			for _, r := range have {
				d, used := fieldDiff(sh, k, g.Value[k], r, free)
				if d == "" {
					first, by = "", r.excuses
					for _, p := range used {
						by = append(by, free[p])
					}
					break
				}
				if first == "" {
					first = d
				}
			}
			if first != "" {
				return check.Verdict{Property: world.Converges, At: end, Detail: first}
			}
			excused = append(excused, by...)
		}
	}
	return frozenNote(skipped).Excuse(excused...)
}

func Flatten(sh canon.Shape, v any) map[string]string {
	out := map[string]string{}
	canon.Leaves(v, "", sh, out)
	return out
}

// learned are the leaf paths of object key in which the fault-free runs of
// the schedules differ (a leaf one has and another lacks included), each
// with the case of the table that names it: LearnedField where two
// schedules differ, RandomDraws where only the run with other draws does.
func learned(sh canon.Shape, gvk schema.GroupVersionKind, key string, schedules []named) map[string]string {
	free := map[string]string{}
	if len(schedules) < 2 {
		return free
	}
	flat := make([]map[string]string, len(schedules))
	for i, r := range schedules {
		flat[i] = Flatten(sh, r.snap.Of(gvk).Value[key])
	}
	for i, f := range flat {
		for p, v := range f { // lint:order-independent a map is filled, LearnedField over RandomDraws whatever the order
			for j, o := range flat {
				if ov, ok := o[p]; !ok || ov != v {
					why := LearnedField
					if schedules[i].draws || schedules[j].draws {
						why = RandomDraws
					}
					if free[p] != LearnedField {
						free[p] = why
					}
				}
			}
		}
	}
	return free
}

// fieldDiff names the first field of got that differs from ref's object key
// and is not free ("" when there is none), and the free fields that differ
// (when none other does).
func fieldDiff(sh canon.Shape, key string, got any, ref named, free map[string]string) (string, []string) {
	g := Flatten(sh, got)
	r := Flatten(sh, ref.snap.Of(gvkOfKey(ref.snap, key)).Value[key])
	var paths []string
	for p := range g { // lint:order-independent sorted below
		paths = append(paths, p)
	}
	for p := range r { // lint:order-independent sorted below
		paths = append(paths, p)
	}
	slices.Sort(paths)
	show := func(v string, ok bool) string {
		if !ok {
			return "nothing"
		}
		return v
	}
	var used []string
	paths = slices.Compact(paths)
	// within says that p has a leaf below it in one of the two: an object
	// or list empty in one is filled in the other, and the difference is
	// in the leaves below it, named as they are (a status emptied by the
	// dropped observedGeneration, "{}", against one that holds a field).
	within := func(p string) bool {
		i, _ := slices.BinarySearch(paths, p)
		for _, q := range paths[i:] {
			if q != p && strings.HasPrefix(q, p) && (q[len(p)] == '.' || q[len(p)] == '[') {
				return true
			}
			if !strings.HasPrefix(q, p) {
				break
			}
		}
		return false
	}
	for _, p := range paths {
		rv, inr := r[p]
		gv, ing := g[p]
		if gv == rv && ing == inr || within(p) {
			continue
		}
		if free[p] != "" {
			used = append(used, p)
			continue
		}
		return fmt.Sprintf("%s differs between %s and this run at %s: %s there, %s here:\n    %s: %s\n    this run: %s", key, ref.name, p,
			show(rv, inr), show(gv, ing), ref.name, ref.snap.textOf(key), canon.Encode(got)), nil
	}
	return "", used
}

// gvkOfKey finds the kind of an object key in s (keys start with the kind's
// name; kinds of one name in two groups are told apart by their objects).
func gvkOfKey(s *Snapshot, key string) schema.GroupVersionKind {
	kind, _, _ := strings.Cut(key, " ")
	for _, gvk := range s.Kinds {
		if gvk.Kind == kind {
			if _, ok := s.Of(gvk).Text[key]; ok {
				return gvk
			}
		}
	}
	return schema.GroupVersionKind{}
}

func (s *Snapshot) textOf(key string) string { return s.Of(gvkOfKey(s, key)).Text[key] }

// countWindow says over what window update-summaries counts: each run's
// whole watch log, from its start to its end (the fault phase and the heal
// budget).
func countWindow(end time.Duration) string {
	return fmt.Sprintf("counted over each run's whole length, the fault phase and the heal budget: this run's from 0s to %v", end)
}

// updateSummaries: no object of the judged kinds created or deleted more
// times than in every fault-free run of the same workload. A dependent
// created while its owners were gone or being deleted, and then deleted,
// is the garbage collector's rule at work (a reconcile that read its owner
// from a cache behind the deletion re-creates it; the collector deletes a
// dependent whose owners are all gone): a note with its count, not a
// violation, when it was created before the heal's grace ended.
func UpdateSummaries(w *world.World, refs []*Reference, got *Snapshot, end time.Duration) check.Verdict {
	var racedKeys, rolledKeys, cycled, finishedKeys, keptKeys, temporaries, excused []string
	rs := refNames(refs)
	fr := Frozen(refs, got)
	snaps := []*Snapshot{got}
	for _, r := range refs {
		snaps = append(snaps, r.Snap)
	}
	for _, gvk := range Judged(w, snaps...) {
		var keys []string
		for _, s := range snaps {
			for k := range s.Changes[gvk] { // lint:order-independent sorted below
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			var g createsDeletes
			if c := got.Changes[gvk][k]; c != nil {
				g = *c
			}
			// Only churn the fault added counts: an operator that, delayed by
			// a fault, never made an object the workload deleted first did
			// less, not wrong (and one that misses needed work ends elsewhere,
			// which converges sees). The most of any reference is the bound.
			var most createsDeletes
			for _, r := range refs {
				if c := r.Snap.Changes[gvk][k]; c != nil {
					most.Creates, most.deletes = max(most.Creates, c.Creates), max(most.deletes, c.deletes)
				}
			}
			if g.Creates <= most.Creates && g.deletes <= most.deletes {
				// Within the bound: a count above the plan's own fault-free
				// run's is excused by the reference that makes as many.
				excused = append(excused, countedBy(rs, gvk, k, g)...)
				continue
			}
			if g.Creates > most.Creates || g.deletes > most.deletes {
				if finished(g, most) {
					finishedKeys = append(finishedKeys, k)
					excused = append(excused, LifetimeEnd)
					continue
				}
				if r, e := raced(k, g, most, got.userDeleted), edited(k, g, most, got.userEdited); r || e {
					racedKeys = append(racedKeys, k)
					if r {
						excused = append(excused, UserDeletionRace)
					} else {
						excused = append(excused, UserEditRace)
					}
					continue
				}
				if rolled(k, g, most, got, refs) {
					rolledKeys = append(rolledKeys, k)
					excused = append(excused, SlowedRollout)
					continue
				}
				if _, ok := fr[k]; ok && g.Creates == most.Creates+1 && g.deletes == most.deletes {
					// A frozen output (frozen.go) made once more and kept:
					// the operator got that far before the user's value
					// that it now fails on landed, and a failing reconcile
					// keeps what the last one that got through made; a
					// fault-free run that met the value first never made
					// it. Made twice, or unmade, still counts.
					keptKeys = append(keptKeys, k)
					excused = append(excused, FrozenOutputs)
					continue
				}
				if ns := got.Changes[namespaceGVK]["Namespace "+namespaceOf(k)]; ns != nil && g.Creates <= ns.Creates && g.deletes <= ns.deletes {
					// Made once in each incarnation of its namespace at
					// most: how far each incarnation got is the
					// namespace's, and its lifetimes are counted there.
					excused = append(excused, NamespaceLifetime)
					continue
				}
				if got.temporary[k] && g.Creates-most.Creates == g.deletes-most.deletes {
					// How many temporary objects the operator made and
					// deleted again (once per attempt) is its own.
					temporaries = append(temporaries, k)
					excused = append(excused, Temporary)
					continue
				}
				if cycling(most) {
					cycled = append(cycled, fmt.Sprintf("%s (%s; %s in the fault-free run)", k, g, most))
					excused = append(excused, CyclePace)
					continue
				}
				ref := "the fault-free run of the same workload"
				return check.Verdict{Property: world.UpdateSummaries, At: end, Detail: fmt.Sprintf("%s was %s in %s, %s in this run: %s (%s)", k, most, ref, g, extraWrites(g, most, ref), countWindow(end))}
			}
		}
	}
	var notes []string
	if n := len(got.collected); n > 0 {
		excused = append(excused, CollectorChurn)
		notes = append(notes, fmt.Sprintf("%d dependent%s created for an owner that was gone or being deleted, then collected (not counted; the first: %s)", n, world.Plural(n), got.collected[0]))
	}
	if n := len(racedKeys); n > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s made and unmade once more in this run than in a fault-free run, deleted after the workload's deletion or edit (the operator's write raced it; not counted: %s)", n, world.Plural(n), strings.Join(racedKeys, ", ")))
	}
	if n := len(rolledKeys); n > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s made and unmade once more in this run than in a fault-free run, replaced in a rollout after the workload's edit, from a template the fault-free run's owner held before the one it ends with (the operator wrote the same templates later; not counted: %s)", n, world.Plural(n), strings.Join(rolledKeys, ", ")))
	}
	if n := len(finishedKeys); n > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s deleted once more in this run than in a fault-free run, and created no more (a lifetime's end: the end state is converges' to judge; not counted: %s)", n, world.Plural(n), strings.Join(finishedKeys, ", ")))
	}
	if n := len(keptKeys); n > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s made once more in this run than in a fault-free run and kept, the output of a reconcile that now fails on the user's value as the fault-free run's does (the operator got further before the value landed; not counted: %s)", n, world.Plural(n), strings.Join(keptKeys, ", ")))
	}
	if n := len(cycled); n > 0 {
		notes = append(notes, fmt.Sprintf("%d object%s the operator makes and unmakes over and over with no fault, a different number of times here (a retry cycle's pace; not counted: %s)", n, world.Plural(n), strings.Join(cycled, ", ")))
	}
	if n := len(temporaries); n > 0 {
		notes = append(notes, fmt.Sprintf("%d temporary object%s of generated name the operator made and that are gone, made and deleted more often in this run (not counted: %s)", n, world.Plural(n), strings.Join(temporaries, ", ")))
	}
	note := strings.Join(notes, "; ")
	return check.Verdict{Property: world.UpdateSummaries, Holds: true, Detail: note}.Excuse(excused...)
}

// countedBy are the cases of the table that excuse got's counts g of object
// k where they pass the plan's own fault-free run's (rs[0]) and no
// reference's most: for each count, the first reference that makes as
// many.
func countedBy(rs []named, gvk schema.GroupVersionKind, k string, g createsDeletes) []string {
	count := func(r named) createsDeletes {
		if c := r.snap.Changes[gvk][k]; c != nil {
			return *c
		}
		return createsDeletes{}
	}
	if len(rs) == 0 {
		return nil
	}
	own := count(rs[0])
	var out []string
	if g.Creates > own.Creates {
		if i := slices.IndexFunc(rs, func(r named) bool { return count(r).Creates >= g.Creates }); i >= 0 {
			out = append(out, rs[i].excuses...)
		}
	}
	if g.deletes > own.deletes {
		if i := slices.IndexFunc(rs, func(r named) bool { return count(r).deletes >= g.deletes }); i >= 0 {
			out = append(out, rs[i].excuses...)
		}
	}
	return out
}
