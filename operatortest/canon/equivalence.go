package canon

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/controller-runtime/pkg/client"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// Tokens is a run's canonicalisation: its uids and generated names, read from
// the run's watch log, and the replacer that turns them into tokens.
type Tokens struct {
	names map[types.UID]string // uid -> the object's canonical name
	repl  *strings.Replacer
	// scheduled are the pods the cluster bound to a node (created with no
	// spec.nodeName): which node is the scheduler's pick.
	scheduled map[types.UID]bool
	// digests finds what a checksum is the digest of (digests.go).
	digests *digests
}

func NewTokens(log []apiserver.Event) *Tokens {
	c := &Tokens{names: map[types.UID]string{}, scheduled: map[types.UID]bool{}, digests: &digests{log: log}}
	incarnations := map[string][]types.UID{} // "Kind ns/name" or "Kind name" (canonical: objectKey) -> its uids in order
	var keys []string
	var uidPairs [][2]string
	made := madeIn(log, c.digests)
	gen, genPairs := generatedNames(made)
	for _, m := range made {
		name := m.name
		if g, ok := gen[m.uid]; ok {
			name = g
		}
		c.names[m.uid] = name
		k := ObjectKey(m.kind, m.ns, name)
		if _, ok := incarnations[k]; !ok {
			keys = append(keys, k)
		}
		incarnations[k] = append(incarnations[k], m.uid)
	}
	for _, ev := range log {
		if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Added && p.Spec.NodeName == "" {
			c.scheduled[p.UID] = true
		}
	}
	// Pod addresses: the network plugin allocates them, so which pod has
	// which address counts the pods started before it on its node. Each is
	// named by the pod it was first allocated to. Services' cluster IPs:
	// kube-apiserver draws them at random from the service CIDR; each is
	// named by the Service it was first given to.
	var ipPairs [][2]string
	seenIP := map[string]bool{}
	for _, ev := range log {
		var ips []string
		var owner string
		switch o := ev.Object.(type) {
		case *corev1.Pod:
			ips, owner = podIPs(o), "<ip:Pod "+o.Namespace+"/"+c.Name(o)+">"
		case *corev1.Service:
			ips, owner = serviceIPs(o), "<ip:Service "+o.Namespace+"/"+c.Name(o)+">"
		}
		for _, ip := range ips {
			if !seenIP[ip] {
				seenIP[ip] = true
				ipPairs = append(ipPairs, [2]string{ip, owner})
			}
		}
	}
	// The last incarnation of a name is the object; earlier ones are named
	// by their place (a reference to one is a reference to an object gone).
	for _, k := range keys {
		uids := incarnations[k]
		for i, uid := range uids {
			tok := "<uid:" + k
			if i < len(uids)-1 {
				tok += " incarnation " + strconv.Itoa(i+1)
			}
			uidPairs = append(uidPairs, [2]string{string(uid), tok + ">"})
		}
	}
	// Longer names first, so that a name that contains another (a Pod's
	// generated name that starts with its Job's) is replaced whole.
	pairs := append(append(uidPairs, genPairs...), ipPairs...)
	slices.SortStableFunc(pairs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	c.repl = strings.NewReplacer(args...)
	return c
}

// Binding names the node the scheduler bound a pod to, in the pod's
// decoded content m: spec.nodeName and the node's addresses in its status
// (hostIP, hostIPs) become "<node of Pod ns/name>". The scheduler picks
// among the nodes that fit (at random among equal scores), so which node a
// pod runs on differs between two runs; a pod created with its node set
// keeps it.
func (c *Tokens) Binding(gvk schema.GroupVersionKind, o client.Object, m map[string]any) {
	if gvk.GroupKind() != (schema.GroupKind{Kind: "Pod"}) || !c.scheduled[o.GetUID()] {
		return
	}
	tok := "<node of Pod " + o.GetNamespace() + "/" + c.Name(o) + ">"
	if spec, ok := m["spec"].(map[string]any); ok && spec["nodeName"] != nil {
		spec["nodeName"] = tok
	}
	st, ok := m["status"].(map[string]any)
	if !ok {
		return
	}
	if st["hostIP"] != nil {
		st["hostIP"] = tok
	}
	if ips, ok := st["hostIPs"].([]any); ok {
		for _, e := range ips {
			if ip, ok := e.(map[string]any); ok && ip["ip"] != nil {
				ip["ip"] = tok
			}
		}
	}
}

// serviceIPs are the cluster IPs the apiserver gave a Service (not "None").
func serviceIPs(s *corev1.Service) []string {
	var out []string
	for _, ip := range append([]string{s.Spec.ClusterIP}, s.Spec.ClusterIPs...) {
		if ip != "" && ip != corev1.ClusterIPNone && !slices.Contains(out, ip) {
			out = append(out, ip)
		}
	}
	return out
}

// podIPs are the addresses a pod's status carries.
func podIPs(p *corev1.Pod) []string {
	var out []string
	if p.Status.PodIP != "" {
		out = append(out, p.Status.PodIP)
	}
	for _, ip := range p.Status.PodIPs {
		if ip.IP != "" && ip.IP != p.Status.PodIP {
			out = append(out, ip.IP)
		}
	}
	return out
}

// Name is an object's canonical name.
func (c *Tokens) Name(o client.Object) string {
	if n, ok := c.names[o.GetUID()]; ok {
		return n
	}
	return o.GetName()
}

var (
	rfc3339Time = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})( [A-Z]{3,4})?`)
	goTime      = regexp.MustCompile(`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? [+-]\d{4} [A-Z]{2,5}`)
)

// Text canonicalises a string: uids and generated names as tokens, times
// masked.
func (c *Tokens) Text(s string) string {
	if d, ok := c.encoded(s); ok {
		return d
	}
	if d, ok := c.digests.name(s); ok {
		return d
	}
	s = c.repl.Replace(s)
	if strings.Contains(s, ":") {
		s = goTime.ReplaceAllString(s, "<time>")
		s = rfc3339Time.ReplaceAllString(s, "<time>")
	}
	if strings.Contains(s, " is invalid: ") {
		// A validation's refusal is its cause wherever it appears (a
		// Ready condition's message that carries the error): errorCause.
		s = ErrorCause(s)
	}
	return s
}

// base64Text is what standard base64 looks like.
var base64Text = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)

// encoded canonicalises a string that holds JSON: a JSON object or array
// (an annotation holding an applied configuration), or the standard base64
// of one (a Secret's data: a Helm release record, a token), as the
// canonical JSON of its content ("<base64 ...>" for the second), so that
// what is nondeterministic inside (a time, a uid) is masked as it is
// anywhere else. Anything else is not encoded JSON.
func (c *Tokens) encoded(s string) (string, bool) {
	if len(s) < 8 {
		return "", false
	}
	raw, wrap := []byte(s), "%s"
	if s[0] != '{' && s[0] != '[' {
		if len(s)%4 != 0 || !base64Text.MatchString(s) {
			return "", false
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) == 0 || (b[0] != '{' && b[0] != '[') {
			return "", false
		}
		raw, wrap = b, "<base64 %s>"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	out, err := json.Marshal(c.Value(v))
	if err != nil {
		return "", false
	}
	return fmt.Sprintf(wrap, out), true
}

// uidText is what a uid looks like (RFC 4122's form, as the apiserver
// draws them).
var uidText = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// digestOf is the digest of content that a name or a label was derived from
// (a ControllerRevision's data, a ReplicaSet's template, which its hash
// name digests), after the equivalence: a value derived from content is as
// nondeterministic as what it digests, so it is compared by what it
// digests, canonical, not by its own text. The content is canonicalised as
// any string of an object is (times masked, also inside encoded JSON: a
// restart time stamped into a pod template, as kubectl rollout restart
// does, is the clock's, and the hash over it differs between two
// schedules), with every uid masked as "<uid>" (the run's names are not
// decided yet when the content is read; a uid is the apiserver's draw) and
// cut, the hash the object is named by cut out of it (a ReplicaSet's
// template carries its own pod-template-hash label). ok is false when the
// content cannot be encoded.
//
// A checksum inside the content is named by what it digests (d, the run's
// preimages; nil: as it is): a template that carries a checksum of content
// with a time in it digests alike in two schedules.
func digestOf(content any, cut string, d *digests) (digest string, ok bool) {
	b, err := json.Marshal(content)
	if err != nil {
		return "", false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil { // a copy: content is the object's own
		return "", false
	}
	timeless := &Tokens{repl: strings.NewReplacer(), digests: d}
	text := Encode(timeless.Value(v)) // map keys sorted: the same content, the same text
	if cut != "" {
		text = strings.ReplaceAll(text, cut, "")
	}
	text = uidText.ReplaceAllString(text, "<uid>")
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:4]), true
}

// unixNumber is a run of digits as long as a Unix time in seconds of this
// century.
var unixNumber = regexp.MustCompile(`\b\d{9,10}\b`)

// UnixInstants masks, in an error's text, every number that is the Unix time
// in seconds of an instant of the run (from its start to its end) as
// "<time>": an attempt named by when it was made (the kubebuilder
// tutorial's CronJob names a scheduled run's Job "<cronjob>-<unix time>")
// is made at another instant under another schedule, as every time in the
// text is (canon.text masks them in their RFC 3339 and Go forms). Object
// names in the end state are not masked: two objects named by their times
// are two objects.
func UnixInstants(s string, r *check.Run) string {
	from, to := r.Start.Unix(), r.Start.Add(r.End).Unix()
	return unixNumber.ReplaceAllStringFunc(s, func(n string) string {
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v < from || v > to {
			return n
		}
		return "<time>"
	})
}

// Value canonicalises a decoded JSON value in place (map keys too) and
// returns it.
func (c *Tokens) Value(v any) any {
	switch x := v.(type) {
	case string:
		return c.Text(x)
	case map[string]any:
		var renamed [][2]string
		for k, e := range x { // lint:order-independent each entry is changed alone; renames are applied sorted below
			x[k] = c.Value(e)
			if ck := c.Text(k); ck != k {
				renamed = append(renamed, [2]string{k, ck})
			}
		}
		slices.SortFunc(renamed, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
		for _, r := range renamed {
			x[r[1]] = x[r[0]]
			delete(x, r[0])
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = c.Value(e)
		}
		return x
	}
	return v
}

// Shape is what a schema says of one node of an object: its fields, its
// items or values, and what kind of list it is.
type Shape interface {
	field(name string) Shape
	elem() Shape
	// list is the list's type: "map" (with its keys), "set", or "" (atomic or
	// unknown: order counts).
	list() (kind string, keys []string)
}

// crdShape is a node of a CRD's OpenAPI v3 schema.
type crdShape struct {
	s *apiextensionsv1.JSONSchemaProps
}

func crdNode(s *apiextensionsv1.JSONSchemaProps) Shape {
	if s == nil {
		return nil
	}
	return crdShape{s}
}

func (c crdShape) field(name string) Shape {
	if p, ok := c.s.Properties[name]; ok {
		return crdNode(&p)
	}
	if a := c.s.AdditionalProperties; a != nil {
		return crdNode(a.Schema)
	}
	return nil
}

func (c crdShape) elem() Shape {
	if it := c.s.Items; it != nil {
		return crdNode(it.Schema)
	}
	if a := c.s.AdditionalProperties; a != nil {
		return crdNode(a.Schema)
	}
	return nil
}

func (c crdShape) list() (string, []string) {
	if c.s.XListType == nil {
		return "", nil
	}
	switch *c.s.XListType {
	case "map":
		return "map", c.s.XListMapKeys
	case "set":
		return "set", nil
	}
	return "", nil
}

// smdShape is a node of a built-in kind's structured-merge-diff schema.
type smdShape struct {
	s  *smdschema.Schema
	tr smdschema.TypeRef
}

func (n smdShape) atom() (smdschema.Atom, bool) { return n.s.Resolve(n.tr) }

func (n smdShape) field(name string) Shape {
	a, ok := n.atom()
	if !ok || a.Map == nil {
		return nil
	}
	if f, ok := a.Map.FindField(name); ok {
		return smdShape{n.s, f.Type}
	}
	if a.Map.ElementType != (smdschema.TypeRef{}) {
		return smdShape{n.s, a.Map.ElementType}
	}
	return nil
}

func (n smdShape) elem() Shape {
	a, ok := n.atom()
	switch {
	case !ok:
		return nil
	case a.List != nil:
		return smdShape{n.s, a.List.ElementType}
	case a.Map != nil:
		return smdShape{n.s, a.Map.ElementType}
	}
	return nil
}

func (n smdShape) list() (string, []string) {
	a, ok := n.atom()
	if !ok || a.List == nil || a.List.ElementRelationship != smdschema.Associative {
		return "", nil
	}
	if len(a.List.Keys) > 0 {
		return "map", a.List.Keys
	}
	return "set", nil
}

// Shapes finds the schema of each judged kind: a CRD's own, or client-go's
// for a built-in kind.
type Shapes struct {
	crds   map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps
	scheme *runtime.Scheme
	mu     sync.Mutex
	tc     managedfields.TypeConverter
	known  map[schema.GroupVersionKind]Shape
}

func NewShapes(crds []apiserver.CRD, scheme *runtime.Scheme) *Shapes {
	s := &Shapes{crds: map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps{}, scheme: scheme, known: map[schema.GroupVersionKind]Shape{}}
	for _, c := range crds {
		s.crds[c.GVK] = c.Schema
	}
	return s
}

// For is the schema of gvk's objects (nil: none known, every list atomic).
func (s *Shapes) For(gvk schema.GroupVersionKind) Shape {
	if sch, ok := s.crds[gvk]; ok {
		return crdNode(sch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sh, ok := s.known[gvk]; ok {
		return sh
	}
	var sh Shape
	if obj, err := s.scheme.New(gvk); err == nil {
		if s.tc == nil {
			s.tc = applyconfigurations.NewTypeConverter(s.scheme)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		if tv, err := s.tc.ObjectToTyped(obj); err == nil {
			sh = smdShape{tv.Schema(), tv.TypeRef()}
		}
	}
	s.known[gvk] = sh
	return sh
}

// SortLists orders, in place, every list of v that the schema says has no
// order, after ordering their items' own lists.
func SortLists(v any, sh Shape, field string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x { // lint:order-independent each value is sorted alone
			var sub Shape
			if sh != nil {
				sub = sh.field(k)
			}
			SortLists(e, sub, k)
		}
	case []any:
		var item Shape
		if sh != nil {
			item = sh.elem()
		}
		for _, e := range x {
			SortLists(e, item, "")
		}
		kind, keys := "", []string(nil)
		if sh != nil {
			kind, keys = sh.list()
		}
		if kind == "" && field == "conditions" && distinctTypes(x) {
			kind, keys = "map", []string{"type"}
		}
		switch kind {
		case "map":
			slices.SortStableFunc(x, func(a, b any) int { return strings.Compare(keyOf(a, keys), keyOf(b, keys)) })
		case "set":
			slices.SortStableFunc(x, func(a, b any) int { return strings.Compare(Encode(a), Encode(b)) })
		}
	}
}

// distinctTypes: every item is an object with a type, and no two share one.
func distinctTypes(items []any) bool {
	seen := map[string]bool{}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		t, ok := m["type"].(string)
		if !ok || seen[t] {
			return false
		}
		seen[t] = true
	}
	return true
}

// keyOf is a map-list item's key: its key fields' values.
func keyOf(item any, keys []string) string {
	m, _ := item.(map[string]any)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+Encode(m[k]))
	}
	return strings.Join(parts, ",")
}

// Encode is v's JSON, map keys sorted, with <, > and & as themselves (the
// tokens read as they are in reports).
func Encode(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// Nondeterministic is Options.Nondeterministic by kind: the dotted paths to
// Mask.
type Nondeterministic map[string][][]string

func (n Nondeterministic) Mask(kind string, v any) {
	for _, path := range n[kind] {
		maskPath(v, path)
	}
}

// maskPath replaces the value at path (through lists: in each item) with
// "<nondeterministic>".
func maskPath(v any, path []string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			maskPath(e, path)
		}
	case map[string]any:
		if len(path) == 0 {
			return
		}
		e, ok := x[path[0]]
		if !ok {
			return
		}
		if len(path) == 1 {
			x[path[0]] = "<nondeterministic>"
			return
		}
		maskPath(e, path[1:])
	}
}

// Leaves flattens a canonical value: path -> the JSON of each scalar (an empty
// list or map is a leaf too). Items of a map list are named by their keys.
func Leaves(v any, path string, sh Shape, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[path] = "{}"
		}
		for k, e := range x { // lint:order-independent a map is filled
			var sub Shape
			if sh != nil {
				sub = sh.field(k)
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			Leaves(e, p, sub, out)
		}
	case []any:
		if len(x) == 0 {
			out[path] = "[]"
		}
		var item Shape
		kind, keys := "", []string(nil)
		if sh != nil {
			item = sh.elem()
			kind, keys = sh.list()
		}
		if kind == "" && strings.HasSuffix(path, "conditions") && distinctTypes(x) {
			kind, keys = "map", []string{"type"}
		}
		for i, e := range x {
			idx := strconv.Itoa(i)
			switch kind {
			case "map":
				idx = keyOf(e, keys)
			case "set":
				idx = Encode(e)
			}
			Leaves(e, path+"["+idx+"]", item, out)
		}
	default:
		out[path] = Encode(x)
	}
}

// ParsePaths reads Options.Nondeterministic.
func ParsePaths(fields []NondeterministicField, known func(kind string) bool) (Nondeterministic, error) {
	out := Nondeterministic{}
	for i, f := range fields {
		if f.Kind == "" || f.Path == "" {
			return nil, fmt.Errorf("Nondeterministic[%d]: needs a Kind and a Path", i)
		}
		if !known(f.Kind) {
			return nil, fmt.Errorf("Nondeterministic[%d]: kind %q is not a kind of Options.Scheme or the CRDs", i, f.Kind)
		}
		path := strings.Split(strings.TrimPrefix(f.Path, "."), ".")
		if slices.Contains(path, "") {
			return nil, fmt.Errorf("Nondeterministic[%d]: path %q has an empty segment", i, f.Path)
		}
		out[f.Kind] = append(out[f.Kind], path)
	}
	return out, nil
}

// NondeterministicField names a field that legitimately differs between two
// runs of one workload in the operator's domain, and that the fault-free runs
// For two schedules did not show to differ (a counter of attempts that depends
// on how often a transient error struck): converges, update-summaries'
// comparisons and interleavings-agree ignore its value (it must still exist
// where the reference has it). A last resort: the oracles already ignore what
// a real cluster makes nondeterministic (equivalence.go), and what the
// fault-free runs show to differ.
type NondeterministicField struct {
	// Kind is the object's kind ("Widget", "ConfigMap").
	Kind string
	// Path is the dotted path of the field from the object's root
	// ("status.attempts"); through a list it names the field in every item
	// ("spec.backends.token").
	Path string
}
