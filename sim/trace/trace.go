package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Step is one thing that happened in a run.
type Step struct {
	At         time.Duration // virtual time since the start of the run
	Process    string        // "" for the kernel and the workload
	Controller string
	Worker     int    // 1-based worker of the controller; 0 outside a worker
	Reconcile  int    // 1-based reconcile number of the controller; 0 outside a reconcile
	Op         string // get list create update patch delete ... reconcile result crash restart action fault event
	Object     string // "Kind namespace/name", or "Kind name" when cluster-scoped
	// RVSeen is the resourceVersion the caller had (a write) or got (a read);
	// RVCurrent is the server's resourceVersion of that object at the time.
	// Together they show how stale a read was, or why a write conflicted. A
	// get that found nothing has RVSeen 0 and, when the object existed,
	// RVCurrent its version. For a cached list, RVSeen is the resourceVersion
	// the cache had applied its kind's changes through and RVCurrent that of
	// the newest change to the objects listed (their kind, in the list's
	// namespace): a list is stale when RVCurrent > RVSeen.
	RVSeen, RVCurrent uint64
	// Items is the number of items a successful list returned (0 for other
	// steps).
	Items int
	// RVWritten is the resourceVersion a successful write produced (0 otherwise).
	RVWritten uint64
	// Digest is a digest of what a successful write stored (the object as the
	// server returned it), so that the trace hash covers object contents: a
	// wall-clock time or a map-order-dependent value written into an object makes
	// two runs of one plan differ. Empty for reads, failed writes and deletes.
	// DigestDeleted when the write deleted the object (an update or patch
	// that removed the last finalizer of a deleting object).
	Digest string
	Result string // "ok", an error reason, or the step's outcome
}

// appendCanonical appends the canonical line of s (without newline): the form the
// hash covers. Every field is always present, so the form parses unambiguously.
func (s *Step) appendCanonical(b []byte) []byte {
	b = strconv.AppendInt(b, int64(s.At), 10)
	b = append(b, ' ')
	b = appendField(b, s.Process)
	b = append(b, ' ')
	b = appendField(b, s.Controller)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s.Worker), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s.Reconcile), 10)
	b = append(b, ' ')
	b = appendField(b, s.Op)
	b = append(b, ' ')
	b = appendField(b, s.Object)
	b = append(b, ' ')
	b = strconv.AppendUint(b, s.RVSeen, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, s.RVCurrent, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, s.RVWritten, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(s.Items), 10)
	b = append(b, ' ')
	b = appendField(b, s.Digest)
	b = append(b, ' ')
	if s.Op == "log" || s.Op == "panic" {
		b = appendField(b, RunIndependent(s.Result))
	} else {
		b = appendField(b, s.Result)
	}
	return b
}

// runDependent matches what a log line or a panic value can carry that
// differs between two runs of one plan though nothing the operator did
// differs: goroutine ids, synctest bubble ids and the addresses in a stack
// trace (the one apimachinery's panic handler logs with a reconcile panic,
// say) or in a printed pointer; sourcePath the directories of a source path
// (the machine's), in a line as logged or as a quoted log value.
var (
	runDependent = regexp.MustCompile(`goroutine [0-9]+|synctest bubble [0-9]+|0x[0-9a-fA-F]+`)
	sourcePath   = regexp.MustCompile(`(\\t|\t| )?[^\s"=\\]*/([^/\s"=\\]+\.go:[0-9]+)`)
)

// RunIndependent is text (a log line, a panic value) with what differs
// between runs of one plan replaced: goroutine and bubble ids by N,
// addresses by "0x?", source paths by their file's base name. The trace hash
// covers log lines and panics in this form (Step.String keeps them as they
// were), so a run that logs a stack trace replays to the same hash.
func RunIndependent(text string) string {
	if !strings.Contains(text, "0x") && !strings.Contains(text, "goroutine ") && !strings.Contains(text, ".go:") {
		return text
	}
	text = runDependent.ReplaceAllStringFunc(text, func(m string) string {
		switch {
		case strings.HasPrefix(m, "0x"):
			return "0x?"
		case strings.HasPrefix(m, "goroutine "):
			return "goroutine N"
		}
		return "synctest bubble N"
	})
	return sourcePath.ReplaceAllString(text, "${1}${2}")
}

func appendField(b []byte, f string) []byte {
	if f == "" {
		return append(b, '-')
	}
	for i := 0; i < len(f); i++ { // strings.ContainsAny, without its set built per call
		if c := f[i]; c == ' ' || c == '\n' || c == '"' {
			return strconv.AppendQuote(b, f)
		}
	}
	return append(b, f...)
}

// Canonical is the canonical line of s.
func (s Step) Canonical() string { return string(s.appendCanonical(nil)) }

// String is a human-readable line: time, who, what, on what, how stale, result.
func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%10s", FormatAt(s.At))
	who := s.Process
	if s.Controller != "" {
		who += "/" + s.Controller
	}
	if s.Worker > 0 {
		who += fmt.Sprintf("#%d", s.Worker)
	}
	if s.Reconcile > 0 {
		who += fmt.Sprintf(" r%d", s.Reconcile)
	}
	if who == "" {
		who = "-"
	}
	fmt.Fprintf(&b, "  %-28s %-10s %s", who, s.Op, s.Object)
	list := IsList(s.Op) && (s.Result == "ok" || s.Result == "")
	if list {
		fmt.Fprintf(&b, " %d item%s", s.Items, plural(s.Items))
	}
	if s.RVSeen != 0 || s.RVCurrent != 0 {
		rv := "rv="
		if list {
			rv = "cache at rv="
		}
		switch {
		case s.RVSeen == s.RVCurrent:
			fmt.Fprintf(&b, " %s%d", rv, s.RVSeen)
		case s.RVSeen == 0 && IsRead(s.Op):
			fmt.Fprintf(&b, " (current rv=%d, stale)", s.RVCurrent)
		case s.RVCurrent == 0 && IsRead(s.Op):
			fmt.Fprintf(&b, " %s%d (current: none, stale)", rv, s.RVSeen)
		case IsRead(s.Op):
			fmt.Fprintf(&b, " %s%d (current %d, stale)", rv, s.RVSeen, s.RVCurrent)
		default:
			fmt.Fprintf(&b, " rv=%d (current %d, stale)", s.RVSeen, s.RVCurrent)
		}
	}
	switch {
	case s.Digest == DigestDeleted:
		b.WriteString(" deleted it (its last finalizer removed)")
	case s.RVWritten != 0:
		fmt.Fprintf(&b, " wrote rv=%d", s.RVWritten)
	}
	if s.Result != "" {
		fmt.Fprintf(&b, " -> %s", s.Result)
	}
	return b.String()
}

// DigestDeleted is the digest of a write that deleted its object instead of
// storing it: an update or patch that removed the last finalizer of a deleting
// object, which kube-apiserver answers by deleting it (its RVWritten is the
// version the response carried, the last stored one).
const DigestDeleted = "deleted"

// Deletes reports whether s is a write that deleted its object, or started its
// deletion: a delete, or a write that removed a deleting object's last
// finalizer.
func (s Step) Deletes() bool {
	op, _, _ := strings.Cut(s.Op, "/")
	return (op == "delete" || s.Digest == DigestDeleted) && (s.Result == "ok" || s.Result == "")
}

// IsRead reports whether op is a read: a get or a list, live or cached, of an
// object or a subresource.
func IsRead(op string) bool {
	op, _, _ = strings.Cut(strings.TrimPrefix(op, "cached-"), "/")
	return op == "get" || op == "list"
}

// IsWrite reports whether a trace step's op is a write (create, update,
// patch, delete, deletecollection, or one of their subresource forms).
func IsWrite(op string) bool {
	switch strings.SplitN(op, "/", 2)[0] {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// IsList reports whether op is a list, live or cached.
func IsList(op string) bool {
	op, _, _ = strings.Cut(strings.TrimPrefix(op, "cached-"), "/")
	return op == "list"
}

// Stale reports whether a read returned other than the server had: an older
// version of the object, the object where it no longer existed, nothing where
// it existed, or a list from a cache that had not applied the newest change of
// what it lists.
func (s Step) Stale() bool {
	return IsRead(s.Op) && s.RVCurrent != s.RVSeen
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// FormatAt formats a virtual time offset compactly: 0s, 1.5s, 2m3.004s.
func FormatAt(d time.Duration) string { return d.String() }

// Trace accumulates the steps of one run and their hash, the run's determinism
// fingerprint.
type Trace struct {
	h     hash.Hash
	buf   []byte
	steps []Step
	n     int
	// Keep says whether steps are kept (for timelines); the hash always covers all.
	Keep bool
	// Observe, if set, sees every step as it is added (the cluster's hot-loop
	// watch). It must not add steps, nor keep the pointer past its return.
	Observe  func(*Step)
	observed Step
}

// New returns an empty trace that keeps its steps.
func New() *Trace { return &Trace{h: sha256.New(), Keep: true} }

// Add records one step.
func (t *Trace) Add(s Step) {
	t.buf = s.appendCanonical(t.buf[:0])
	t.buf = append(t.buf, '\n')
	t.h.Write(t.buf)
	t.n++
	if t.Keep {
		t.steps = append(t.steps, s)
	}
	if t.Observe != nil {
		t.observed = s // a field, not &s: s would escape on every step
		t.Observe(&t.observed)
	}
}

// Len is the number of steps recorded.
func (t *Trace) Len() int { return t.n }

// Steps returns the kept steps.
func (t *Trace) Steps() []Step { return t.steps }

// Hash is the hex SHA-256 of the canonical lines of every step so far.
func (t *Trace) Hash() string {
	return hex.EncodeToString(t.h.Sum(nil))
}

// WriteTimeline writes the kept steps, one human-readable line each.
func (t *Trace) WriteTimeline(w io.Writer) error {
	for _, s := range t.steps {
		if _, err := fmt.Fprintln(w, s.String()); err != nil {
			return err
		}
	}
	return nil
}

// Divergence is where two traces of the same plan first differ.
type Divergence struct {
	Index int   // 0-based step index
	A, B  *Step // nil where one trace ended
}

func (d Divergence) String() string {
	line := func(s *Step) string {
		if s == nil {
			return "(trace ended)"
		}
		return s.Canonical()
	}
	return fmt.Sprintf("traces diverge at step %d:\n  first:  %s\n  second: %s", d.Index, line(d.A), line(d.B))
}

// Diverge returns the first step at which a and b differ, or false when their kept
// steps are the same.
func Diverge(a, b *Trace) (Divergence, bool) {
	n := max(len(a.steps), len(b.steps))
	for i := 0; i < n; i++ {
		var sa, sb *Step
		if i < len(a.steps) {
			sa = &a.steps[i]
		}
		if i < len(b.steps) {
			sb = &b.steps[i]
		}
		if sa == nil || sb == nil || sa.Canonical() != sb.Canonical() {
			return Divergence{Index: i, A: sa, B: sb}, true
		}
	}
	return Divergence{}, false
}
