package reference

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/faults"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Reference runs: the fault-free run of a plan's seed and workload. The
// converges oracle compares a run's end state with its reference's; the
// generator aims timed faults at the reference's reads and writes (Targets);
// interleavings-agree compares the references of two seeds.

// refRun is the fault-free run of one seed and workload.
// refCache holds a world's fault-free runs by seed and workload, oldest
// first in order (keep).
type Cache struct {
	Runs  map[string]*verdict.Reference
	order []string
	// recalled are the plans judged, by text (RunRecalled), violations the
	// violating ones among them.
	recalled   map[string]*world.RunResult
	violations int
	// logs are each kept reference run's watch log, metadata only
	// (metaLog): what interleavings-agree's blame reads (verdict.ShowsTheBug).
	logs map[*verdict.Reference][]apiserver.Event
}

// refsOf is w's cache of fault-free runs.
func refsOf(w *world.World) *Cache {
	if w.Refs == nil {
		w.Refs = &Cache{Runs: map[string]*verdict.Reference{}, logs: map[*verdict.Reference][]apiserver.Event{}}
	}
	return w.Refs.(*Cache)
}

// maxRefs bounds the references kept: exploring draws a new seed for most
// plans; shrinking tries hundreds of distinct seeds and workloads and comes
// back to them (canary's shrink: 235 distinct references, 322 runs of them
// when a full cache of 64 started over).
const maxRefs = 256

// Reference runs (or recalls) the fault-free run of seed and steps.
func Reference(w *world.World, t *testing.T, seed uint64, steps []plan.Step) (*verdict.Reference, error) {
	return referenceOf(w, t, &plan.Plan{Seed: seed, Steps: steps}, 0)
}

// referenceOf runs (or recalls) the run of p, a reference's plan, with the
// operator's processes starting after startAfter.
func referenceOf(w *world.World, t *testing.T, p *plan.Plan, startAfter time.Duration) (*verdict.Reference, error) {
	seed := p.Seed
	key := p.String()
	if startAfter > 0 {
		key = fmt.Sprintf("start after %v\n%s", startAfter, key)
	}
	if r, ok := refsOf(w).Runs[key]; ok && !ColdShrink {
		w.NoteCut(r.Cut)
		return r, nil
	}
	snap, res, err := RunOnce(w, t, p, nil, startAfter)
	if err != nil {
		return nil, err
	}
	if note := world.CutNote(res.Verdicts); note != "" {
		// Recalled, it still says so (cut.go).
		r := &verdict.Reference{Seed: seed, Snap: snap, Cut: note}
		keep(w, key, r)
		return r, nil
	}
	if err := checkObjects(w, res); err != nil { // faults.go
		return nil, err
	}
	r := &verdict.Reference{Seed: seed, Snap: snap, Targets: TargetsOf(w, res), Writes: WritesOf(res.Steps, w.Opts.FaultPhase)}
	keep(w, key, r)
	refsOf(w).logs[r] = metaLog(res.Log)
	return r, nil
}

// keep caches r, a reference run, under key: at most maxRefs, the oldest
// forgotten first (a reference is a function of its key: a forgotten one
// runs again and gives the same run).
func keep(w *world.World, key string, r *verdict.Reference) {
	c := refsOf(w)
	if old, ok := c.Runs[key]; !ok {
		c.order = append(c.order, key)
	} else {
		delete(c.logs, old)
	}
	c.Runs[key] = r
	for len(c.order) > maxRefs {
		delete(c.logs, c.Runs[c.order[0]])
		delete(c.Runs, c.order[0])
		c.order = c.order[1:]
	}
}

// metaLog is log with each object cut to its metadata (name, namespace, uid,
// owner references, deletion timestamp): what the blame rule reads of a
// reference run, kept for as long as the reference is, at a fraction of the
// objects' size.
func metaLog(log []apiserver.Event) []apiserver.Event {
	out := make([]apiserver.Event, len(log))
	for i, ev := range log {
		m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ev.Object.GetName(), Namespace: ev.Object.GetNamespace(),
			UID: ev.Object.GetUID(), OwnerReferences: slices.Clone(ev.Object.GetOwnerReferences()), DeletionTimestamp: ev.Object.GetDeletionTimestamp()}}
		out[i] = apiserver.Event{Type: ev.Type, GVK: ev.GVK, Object: m, ResourceVersion: ev.ResourceVersion, At: ev.At}
	}
	return out
}

// TargetsOf are the instants of the fault phase at which some process wrote
// (a subresource too: a status update is a write), or an operator read live:
// where a crash, a hold or a stale restart makes a difference (Sieve's
// intermediate, unobserved and stale states); and the changes of the fault
// phase the apiserver committed to kinds the world collects (the
// operator's, its children's, the workload models'), each with its
// resourceVersion and kind, taken from the watch log (so deletions count):
// a stale restart aims its lagging watch cache just before or after one;
// and the run's actions, what each process read before each write that
// changed something (acts.go).
func TargetsOf(w *world.World, res *world.RunResult) plan.Targets {
	var out plan.Targets
	for _, s := range res.Steps {
		if s.At > w.Opts.FaultPhase {
			break
		}
		op, _, _ := strings.Cut(s.Op, "/")
		switch op {
		case "create", "update", "patch", "delete", "deletecollection":
		case "get", "list":
			if s.Process == "admin" {
				continue
			}
		default:
			continue
		}
		if strings.HasPrefix(s.Object, "Lease ") {
			continue // leader election's renewals, every RetryPeriod: not the operator's work
		}
		if n := len(out.Instants); n == 0 || out.Instants[n-1] != s.At {
			out.Instants = append(out.Instants, s.At)
		}
	}
	out.Watched = res.Watched
	out.APIFaults = w.FaultWorld().APIFaultsOf(res.Steps) // the API errors drawn by default (package faults's aim.go)
	out.Acts = actsOf(w, res)                             // what a sweep ranks its plans by (acts.go)
	out.Written = map[string]int{}
	by := map[uint64]string{} // the process whose request made each resourceVersion
	for _, s := range res.Steps {
		if s.At > w.Opts.FaultPhase {
			break
		}
		if !faults.ProcessWrite(s) {
			continue
		}
		out.Written[s.Process]++ // counted as writesOf and a crash after a write count them
		if s.RVWritten > 0 {
			by[s.RVWritten] = s.Process
		}
	}
	prev := map[types.UID]client.Object{} // each object's previous version, for what a change did
	for i, ev := range res.Log {
		at := ev.At.Sub(res.Start)
		if at > w.Opts.FaultPhase {
			break
		}
		before := prev[ev.Object.GetUID()]
		prev[ev.Object.GetUID()] = ev.Object
		if i < res.SetUp && by[ev.ResourceVersion] == "" {
			// The cluster's own past (a default namespace, a namespace's
			// content from its bootstrap): a real cluster had it long
			// before the test, so no view is frozen among its writes and
			// no watch withholds its creation. The seed objects (the
			// admin's steps) are the test's set-up, and targets.
			continue
		}
		if slices.Contains(w.Collected, ev.GVK) && aimedAt(w, writeObject(ev.Object)) { // Options.Faults.Objects (faults.go)
			out.Writes = append(out.Writes, plan.Write{At: at, RV: ev.ResourceVersion, Kind: ev.GVK.Group + "/" + ev.GVK.Version + "/" + ev.GVK.Kind,
				Object: writeObject(ev.Object), Process: by[ev.ResourceVersion], Change: changeOf(ev, before)})
		}
	}
	return out
}

// writeObject names an object as a plan's write does: "namespace/name", or
// "name" when cluster-scoped.
func writeObject(o client.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// changeOf is what ev did to its object, whose previous version (nil: none
// in the log) was before.
func changeOf(ev apiserver.Event, before client.Object) plan.Change {
	switch {
	case ev.Type == watch.Added:
		return plan.Created
	case ev.Type == watch.Deleted:
		return plan.Deleted
	case ev.Object.GetDeletionTimestamp() != nil && (before == nil || before.GetDeletionTimestamp() == nil):
		return plan.Deleting
	case before != nil && ev.Object.GetGeneration() != 0 && ev.Object.GetGeneration() == before.GetGeneration():
		return plan.Status
	}
	return plan.Updated
}

// WritesOf are, for each process, its writes in the fault phase that
// another write of the same reconcile follows (faults.ReconcileWrites), by
// their k (counted over the whole run, as a crash after the k-th write
// counts them, every call but a get or a list), in the order of the writes
// that follow them: the run's intermediate states.
func WritesOf(steps []trace.Step, faultPhase time.Duration) map[string][]int {
	prev := faults.ReconcileWrites(steps)
	out := map[string][]int{}
	count := map[string]int{}
	k := map[int]int{} // each write's k
	for i, s := range steps {
		if s.At > faultPhase {
			break
		}
		if !faults.ProcessWrite(s) {
			continue
		}
		count[s.Process]++
		k[i] = count[s.Process]
		if j, ok := prev[i]; ok {
			if ks := out[s.Process]; len(ks) == 0 || ks[len(ks)-1] != k[j] {
				out[s.Process] = append(ks, k[j])
			}
		}
	}
	return out
}

// Writes is the Space's Writes: the reference run's writes per process.
func Writes(w *world.World, t *testing.T) func(p *plan.Plan) map[string][]int {
	return func(p *plan.Plan) map[string][]int {
		r, err := Reference(w, t, p.Seed, p.Steps)
		if err != nil {
			return nil // the run of the plan itself reports the error
		}
		return r.Writes
	}
}

// targets is the Space's Targets: the reference run's instants and writes.
func TargetsOfRun(w *world.World, t *testing.T) func(p *plan.Plan) plan.Targets {
	return func(p *plan.Plan) plan.Targets {
		r, err := Reference(w, t, p.Seed, p.Steps)
		if err != nil {
			return plan.Targets{} // the run of the plan itself reports the error
		}
		return r.Targets
	}
}

// OtherSeed is the seed of the second interleaving interleavings-agree runs:
// another of the generator's 4096 schedules.
func OtherSeed(seed uint64) uint64 { return (seed + 2048) % 4096 }

// References are the fault-free runs of p's workload that the differential
// oracles judge it against: the plan's own schedule first, then another.
func References(w *world.World, t *testing.T, p *plan.Plan) ([]*verdict.Reference, error) {
	var out []*verdict.Reference
	for _, seed := range []uint64{p.Seed, OtherSeed(p.Seed)} {
		r, err := Reference(w, t, seed, p.Steps)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// InterleavingsAgree is Kamera's oracle: the fault-free runs of one workload
// under two schedules end in the same state (modulo what a real cluster makes
// nondeterministic: equivalence.go). When they do not, got (the faulted run)
// tells which side is suspect: the schedule whose end state the faulted run
// does not share is the odd one out.
func InterleavingsAgree(w *world.World, refs []*verdict.Reference, got *verdict.Snapshot) check.Verdict {
	return agree(w, refs, got, nil, "")
}

// InterleavingsAgreeOrRandom is interleavingsAgree, and when the two
// schedules disagree, again without the fields that differ with the
// randomness alone (random.go): the run of the plan's seed with other random
// draws is run only then.
func InterleavingsAgreeOrRandom(w *world.World, t *testing.T, p *plan.Plan, refs []*verdict.Reference, got *verdict.Snapshot) (check.Verdict, error) {
	v := InterleavingsAgree(w, refs, got)
	if v.Holds {
		return v, nil
	}
	free, note, err := randomDerived(w, t, p, refs[0])
	if err != nil || len(free) == 0 {
		return v, err
	}
	return agree(w, refs, got, free, note), nil
}

// agree judges interleavings-agree, the fields of free (object key -> leaf
// paths) not compared; note says what they are when that makes it hold.
// When the two schedules disagree on an object, the report names the run
// that shows the bug by the verdicts' own rules (verdict.ShowsTheBug: a
// deletion completes; a child follows its owner, once per incarnation),
// read from the two runs' watch logs; when that rule does not tell them apart (or a reference's log is not
// kept), the faulted run tells: the schedule whose end state it does not
// share is the odd one out.
func agree(w *world.World, refs []*verdict.Reference, got *verdict.Snapshot, free map[string]map[string]bool, note string) check.Verdict {
	a, b := refs[0], refs[1]
	an := fmt.Sprintf("the fault-free run with seed %d", a.Seed)
	bn := fmt.Sprintf("the fault-free run with seed %d", b.Seed)
	// The outputs of a reconcile that fails by design in both schedules
	// raced the user's steps (frozen.go): not compared here either.
	fr := verdict.Frozen([]*verdict.Reference{b}, a.Snap)
	random := free
	free = verdict.WithFrozenStatus(free, []*verdict.Reference{b}, a.Snap)
	// What the cluster's controllers hold in back-off at either end is
	// still being worked on (cluster-backoff): its owned objects are not
	// compared, nor its status and its owners'.
	bskip, bfree := verdict.AgreeFree(w, a.Snap, b.Snap)
	skip := map[string]string{}
	maps.Copy(skip, fr)
	maps.Copy(skip, bskip)
	free = merged(free, bfree)
	d, key := DisagreementAt(w, a.Snap, b.Snap, an, bn, skip, free)
	if d == "" {
		v := check.Verdict{Property: world.InterleavingsAgree, Holds: true, Detail: note}
		return v.Excuse(agreedBy(w, a.Snap, b.Snap, skip, random, bfree, free)...)
	}
	if i, why := showsTheBug(w, key, [2]*verdict.Reference{a, b}, [2]string{an, bn}); i >= 0 {
		d += fmt.Sprintf("\n  the suspect is %s: %s (a race with no fault; converges does not blame the faults for it)",
			[2]string{an, bn}[i], why)
		return check.Verdict{Property: world.InterleavingsAgree, Detail: d}
	}
	switch withA, withB := Disagreement(w, a.Snap, got, "", "", skip, free) == "", Disagreement(w, b.Snap, got, "", "", skip, free) == ""; {
	case withA && !withB:
		d += fmt.Sprintf("\n  the faulted run ends as %s does: the suspect is %s (a race with no fault; converges does not blame the faults for it)", an, bn)
	case withB && !withA:
		d += fmt.Sprintf("\n  the faulted run ends as %s does: the suspect is %s (a race with no fault; converges does not blame the faults for it)", bn, an)
	default:
		d += "\n  the faulted run ends as neither does: which schedule is wrong is not known (a race with no fault)"
	}
	return check.Verdict{Property: world.InterleavingsAgree, Detail: d}
}

// merged is the union of two sets of paths by object key.
func merged(x, y map[string]map[string]bool) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, m := range []map[string]map[string]bool{x, y} {
		for k, paths := range m { // lint:order-independent a map is filled
			if out[k] == nil {
				out[k] = map[string]bool{}
			}
			maps.Copy(out[k], paths)
		}
	}
	return out
}

// agreedBy are the cases of the table (verdict.Excuses) by which x and y,
// two fault-free schedules that agree but in the objects of skip (frozen
// outputs, or ClusterBackoff's) and the fields of free, agree:
// FrozenOutputs or ClusterBackoff for a skipped object they differ on,
// RandomDraws for a field of random (the fields that differ with the draws
// alone) they differ in, ClusterBackoff for one of backoff (a status in
// the cluster's back-off), FrozenStatusField for any other field of free.
func agreedBy(w *world.World, x, y *verdict.Snapshot, skip map[string]string, random, backoff, free map[string]map[string]bool) []string {
	if len(skip) == 0 && len(free) == 0 {
		return nil
	}
	var out []string
	for _, gvk := range verdict.Judged(w, x, y) {
		xs, ys := x.Of(gvk), y.Of(gvk)
		keys := append(slices.Clone(xs.Keys), ys.Keys...)
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			xt, inx := xs.Text[k]
			yt, iny := ys.Text[k]
			if inx == iny && xt == yt {
				continue
			}
			if why, ok := skip[k]; ok {
				if why == verdict.ClusterBackoff {
					out = append(out, verdict.ClusterBackoff)
				} else {
					out = append(out, verdict.FrozenOutputs)
				}
				continue
			}
			if !inx || !iny {
				continue
			}
			sh := w.Shapes.For(gvk)
			fx, fy := verdict.Flatten(sh, xs.Value[k]), verdict.Flatten(sh, ys.Value[k])
			differs := func(p string) {
				switch {
				case random[k][p]:
					out = append(out, verdict.RandomDraws)
				case backoff[k][p]:
					out = append(out, verdict.ClusterBackoff)
				case free[k][p]:
					out = append(out, verdict.FrozenStatusField)
				}
			}
			for p, v := range fx { // lint:order-independent a set is filled (sorted by Excuse)
				if ov, ok := fy[p]; !ok || ov != v {
					differs(p)
				}
			}
			for p := range fy { // lint:order-independent a set is filled (sorted by Excuse)
				if _, ok := fx[p]; !ok {
					differs(p)
				}
			}
		}
	}
	return out
}

// showsTheBug is verdict.ShowsTheBug over two reference runs that disagree on
// key (a canonical object key, as their snapshots name objects): the index
// of the one that shows the bug and why, or -1 when the rule does not tell,
// or a run's log is not kept (a reference made by hand, not run).
func showsTheBug(w *world.World, key string, refs [2]*verdict.Reference, names [2]string) (int, string) {
	var runs [2]verdict.RunEnd
	for i, r := range refs {
		log, ok := refsOf(w).logs[r]
		if !ok || r.Snap == nil || r.Snap.Canon == nil {
			return -1, ""
		}
		tokens := r.Snap.Canon
		runs[i] = verdict.RunEnd{Name: names[i], Log: log, Key: func(ev apiserver.Event) string {
			return canon.ObjectKey(ev.GVK.Kind, ev.Object.GetNamespace(), tokens.Name(ev.Object))
		}}
	}
	return verdict.ShowsTheBug(key, runs)
}

// Disagreement names the first difference between two end states over the
// judged kinds ("" when they agree), but in the objects of skip and the
// fields of free.
func Disagreement(w *world.World, x, y *verdict.Snapshot, xn, yn string, skip map[string]string, free map[string]map[string]bool) string {
	d, _ := DisagreementAt(w, x, y, xn, yn, skip, free)
	return d
}

// DisagreementAt is Disagreement and the key of the object it names
// ("Kind namespace/name", canonical as the snapshots name objects; "" when
// they agree).
func DisagreementAt(w *world.World, x, y *verdict.Snapshot, xn, yn string, skip map[string]string, free map[string]map[string]bool) (string, string) {
	for _, gvk := range verdict.Judged(w, x, y) {
		xs, ys := x.Of(gvk), y.Of(gvk)
		for _, k := range xs.Keys {
			if _, ok := skip[k]; ok {
				continue
			}
			yt, ok := ys.Text[k]
			switch {
			case !ok:
				return fmt.Sprintf("%s exists after %s, not after %s", k, xn, yn), k
			case yt != xs.Text[k] && !agreeBut(w.Shapes.For(gvk), xs.Value[k], ys.Value[k], free[k]):
				return fmt.Sprintf("%s differs between %s and %s:\n    %s: %s\n    %s: %s", k, xn, yn, xn, xs.Text[k], yn, yt), k
			}
		}
		for _, k := range ys.Keys {
			if _, ok := skip[k]; ok {
				continue
			}
			if _, ok := xs.Text[k]; !ok {
				return fmt.Sprintf("%s exists after %s, not after %s", k, yn, xn), k
			}
		}
	}
	return "", ""
}
