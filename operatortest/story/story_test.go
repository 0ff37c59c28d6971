package story_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

var cmKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func version(rv uint64, at time.Duration, data string) apiserver.Event {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", ResourceVersion: string(rune('0' + rv%10))}, Data: map[string]string{"promoted": data}}
	return apiserver.Event{Type: watch.Modified, GVK: cmKind, Object: cm, ResourceVersion: rv, At: clock.Epoch.Add(at)}
}

// A double promotion: reconcile 2 reads the ConfigMap at rv 21 while the server
// has rv 22 (which records the first promotion), and promotes again.
func doublePromotion() story.Input {
	r := func(at time.Duration, n int, op, obj string, seen, cur uint64, res string) trace.Step {
		return trace.Step{At: at, Process: "ctl", Controller: "pipeline", Worker: 1, Reconcile: n, Op: op, Object: obj, RVSeen: seen, RVCurrent: cur, Result: res}
	}
	steps := []trace.Step{
		{At: 0, Op: "action", Object: "publish", Result: "ok"},
		{At: 0, Process: "ctl", Op: "start", Result: "incarnation 1"},
		r(0, 1, "reconcile", "default/p", 0, 0, ""),
		r(0, 1, "cached-get", "ConfigMap default/p", 21, 21, "ok"),
		{At: time.Millisecond, Process: "promotion", Op: "promote", Object: "default/p/staging@v2", Result: "ok"},
		r(2*time.Second, 1, "patch", "ConfigMap default/p", 21, 21, "ok"),
		r(2*time.Second, 1, "result", "default/p", 0, 0, "ok"),
		r(2*time.Second, 2, "reconcile", "default/p", 0, 0, ""),
		r(2*time.Second, 2, "cached-get", "ConfigMap default/p", 21, 22, "ok"),
		{At: 2*time.Second + time.Millisecond, Process: "promotion", Op: "promote", Object: "default/p/staging@v2", Result: "ok"},
		r(4*time.Second, 2, "result", "default/p", 0, 0, "ok"),
		{At: 2 * time.Minute, Process: "ctl", Op: "crash", Result: "crash at client call 9 (get)"},
		{At: 5 * time.Minute, Op: "heal"},
	}
	steps[5].RVWritten = 22
	p, err := plan.Parse("seed 0\nat 0s publish version=v2\nhold process=ctl kind=/v1/ConfigMap from=0s until=1s\n")
	if err != nil {
		panic(err)
	}
	return story.Input{
		Title: "double promotion", Steps: steps, Start: clock.Epoch, Plan: p,
		Log: []apiserver.Event{version(21, 0, ""), version(22, 2*time.Second, "staging@v2")},
		Verdicts: []check.Verdict{
			{Property: "at-most-once", At: 35 * time.Minute, Detail: "side effect default/p/staging@v2 happened twice"},
			{Property: "converges", Holds: true},
		},
	}
}

func TestDoublePromotionStory(t *testing.T) {
	s := story.Build(doublePromotion())
	var labels []string
	for _, e := range s.Events {
		labels = append(labels, e.Label)
	}
	for _, want := range []string{
		"1st promote default/p/staging@v2 (in pipeline r1)",
		"2nd promote default/p/staging@v2 (in pipeline r2)",
		"stale read of ConfigMap default/p: saw rv=21, current 22",
	} {
		if !contains(labels, want) {
			t.Errorf("no event %q in %q", want, labels)
		}
	}
	if len(s.Verdicts) != 1 {
		t.Fatalf("want the one violated verdict, got %+v", s.Verdicts)
	}
	v := s.Verdicts[0]
	if v.Event < 0 || !strings.HasPrefix(s.Events[v.Event].Label, "2nd promote") || v.At != 2*time.Second+time.Millisecond || v.Judged != 35*time.Minute {
		t.Errorf("the verdict is not drawn at the second promotion: %+v", v)
	}
	// The stale read leads to the second promotion; the first is followed by it.
	linked := map[string]bool{}
	for _, l := range s.Links {
		linked[s.Events[l.From].Label[:3]+"→"+s.Events[l.To].Label[:3]+" "+l.Label] = true
	}
	if !linked["sta→2nd led to"] || !linked["1st→2nd again"] {
		t.Errorf("links: %v", linked)
	}
	// The object read stale has a lane showing each version.
	var obj *story.Lane
	for i := range s.Lanes {
		if s.Lanes[i].ID == "object:ConfigMap default/p" {
			obj = &s.Lanes[i]
		}
	}
	if obj == nil || len(obj.Spans) != 2 || obj.Spans[0].Label != "rv 21" || obj.Spans[1].Label != "rv 22" || obj.Spans[1].From != 2*time.Second {
		t.Fatalf("object lane: %+v", obj)
	}
	// The crash before the judgement is an event; the hold is a span of ctl's lane.
	if !contains(labels, "crash: crash at client call 9 (get)") {
		t.Errorf("no crash event in %q", labels)
	}
	hold := false
	for _, l := range s.Lanes {
		for _, sp := range l.Spans {
			hold = hold || (l.Group == "ctl" && sp.Kind == story.SpanFault && sp.From == 0 && sp.To == time.Second && strings.Contains(sp.Label, "ConfigMap held"))
		}
	}
	if !hold {
		t.Errorf("no hold span on ctl's lane: %+v", s.Lanes)
	}
}

func TestSVGIsLabelled(t *testing.T) {
	var b bytes.Buffer
	if err := story.Build(doublePromotion()).WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{
		"① 1st promote default/p/staging@v2", "2nd promote default/p/staging@v2", "saw rv=21, current 22",
		"✗ at-most-once violated at ", "(judged at 35m0s)", "heal: faults end", "publish version=v2",
		"watch of ConfigMap held (0s–1s)", "crash at client call 9", "rv 21", "The violation, step by step",
		"✗ at-most-once: side effect default/p/staging@v2 happened twice",
	} {
		if !strings.Contains(svg, escape(want)) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	// Every axis label is a round time, and every x is inside the picture.
	for _, m := range regexp.MustCompile(`text-anchor="middle">([^<]+)<`).FindAllStringSubmatch(svg, -1) {
		if strings.HasPrefix(m[1], "≈") {
			continue
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Errorf("tick %q: %v", m[1], err)
			continue
		}
		if !round(d) {
			t.Errorf("tick %q is not a round time", m[1])
		}
	}
	width, _ := strconv.ParseFloat(regexp.MustCompile(`<svg [^>]*width="([0-9.]+)"`).FindStringSubmatch(svg)[1], 64)
	for _, m := range regexp.MustCompile(` x[12]?="(-?[0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		if x, _ := strconv.ParseFloat(m[1], 64); x < 0 || x > width {
			t.Errorf("x=%s outside the picture (width %.0f)", m[1], width)
		}
	}
}

func round(d time.Duration) bool {
	if d == 0 {
		return true
	}
	p := time.Duration(1)
	for d%(p*10) == 0 {
		p *= 10
	}
	return d/p < 100
}

func TestDeterministic(t *testing.T) {
	var a, b, c, d bytes.Buffer
	s1, s2 := story.Build(doublePromotion()), story.Build(doublePromotion())
	if s1.WriteSVG(&a) != nil || s2.WriteSVG(&b) != nil || s1.WriteHTML(&c, nil) != nil || s2.WriteHTML(&d, nil) != nil {
		t.Fatal("write failed")
	}
	if a.String() != b.String() || c.String() != d.String() {
		t.Error("the same run gave different pictures or pages")
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := story.Build(doublePromotion()).WriteHTML(&b, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script src", "<link ", "@import", "https://", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page fetches something: %q", bad)
		}
	}
	if n := strings.Count(page, "http://") - strings.Count(page, "http://www.w3.org/2000/svg"); n != 0 {
		t.Errorf("%d references to http:// besides the SVG namespace", n)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data")
	}
	var data struct {
		Objects map[string]struct{ Key, YAML string }
		Steps   []struct{ Op string }
		HasLogs bool
	}
	if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
		t.Fatal(err)
	}
	if o := data.Objects["22"]; o.Key != "ConfigMap default/p" || !strings.Contains(o.YAML, "promoted: staging@v2") {
		t.Errorf("the stored version rv=22 is missing: %+v", data.Objects)
	}
	if len(data.Steps) != len(doublePromotion().Steps) || data.HasLogs {
		t.Errorf("steps %d, logs %v", len(data.Steps), data.HasLogs)
	}
}

func TestHelmReleaseLane(t *testing.T) {
	rec := func(rv uint64, at time.Duration, typ watch.EventType, v, status, chart string) apiserver.Event {
		sec := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sh.helm.release.v1.op.v" + v, Labels: map[string]string{"name": "op", "owner": "helm", "status": status, "version": v}},
			Type:       "helm.sh/release.v1",
			Data:       map[string][]byte{"release": []byte(`{"release":{"chart":{"name":"op","version":"` + chart + `"}}}`)},
		}
		return apiserver.Event{Type: typ, GVK: schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, Object: sec, ResourceVersion: rv, At: clock.Epoch.Add(at)}
	}
	in := story.Input{
		Title: "helm", Start: clock.Epoch,
		Steps: []trace.Step{{At: 0, Process: "op", Controller: "ext", Worker: 1, Reconcile: 1, Op: "reconcile"}, {At: 20 * time.Second, Process: "op", Controller: "ext", Worker: 1, Reconcile: 1, Op: "result", Result: "ok"}},
		Log: []apiserver.Event{
			rec(5, 0, watch.Added, "1", "deployed", "1.0.0"),
			rec(6, time.Second, watch.Added, "2", "pending-upgrade", "2.0.0"),
			rec(7, 11*time.Second, watch.Deleted, "2", "pending-upgrade", "2.0.0"),
			rec(8, 12*time.Second, watch.Added, "2", "pending-upgrade", "3.0.0"),
			rec(9, 13*time.Second, watch.Modified, "2", "deployed", "3.0.0"),
		},
	}
	s := story.Build(in)
	var got []string
	for _, l := range s.Lanes {
		if l.ID == "object:Helm release ns/op" {
			for _, sp := range l.Spans {
				got = append(got, sp.Label)
			}
		}
	}
	want := []string{"v1 deployed 1.0.0", "v2 pending-upgrade 2.0.0", "v1 deployed 1.0.0", "v2 pending-upgrade 3.0.0", "v2 deployed 3.0.0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("release states %q, want %q", got, want)
	}
}

func TestScaleCutsIdleTime(t *testing.T) {
	in := doublePromotion()
	s := story.Build(in)
	if n := len(s.Scale.Segments); n < 3 {
		t.Fatalf("want the idle stretches cut (0–4s, 2m, 5m, 35m): %+v", s.Scale.Segments)
	}
	prev := -1.0
	for _, at := range []time.Duration{0, time.Second, 4 * time.Second, 2 * time.Minute, 5 * time.Minute, 35 * time.Minute} {
		x := s.Scale.X(at)
		if x <= prev || x > s.Scale.Width {
			t.Errorf("X(%s) = %.1f after %.1f (width %.0f)", at, x, prev, s.Scale.Width)
		}
		prev = x
	}
	// The first four seconds get a good part of the width.
	if w := s.Scale.X(4*time.Second) - s.Scale.X(0); w < s.Scale.Width/4 {
		t.Errorf("0–4s is %.0f of %.0f", w, s.Scale.Width)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// A story shows the last stale read of each object the failure names: an
// object read stale over and over (a hot loop on a custom resource) does not
// push out the one stale read of another (its Secret), which may be the cause.
func TestOneObjectsStaleReadsDoNotHideAnothers(t *testing.T) {
	r := func(at time.Duration, n int, obj string, seen, cur uint64) trace.Step {
		return trace.Step{At: at, Process: "ctl", Controller: "certs", Worker: 1, Reconcile: n, Op: "cached-get", Object: obj, RVSeen: seen, RVCurrent: cur, Result: "ok"}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "tls"}}
	steps := []trace.Step{
		{At: 0, Process: "ctl", Op: "start", Result: "incarnation 1"},
		r(time.Second, 1, "Secret default/tls", 0, 30),
	}
	for n := 2; n <= 6; n++ {
		steps = append(steps, r(time.Duration(n)*time.Second, n, "ConfigMap default/p", 21, 22))
	}
	input := story.Input{
		Title: "hot loop", Steps: steps, Start: clock.Epoch,
		Log: []apiserver.Event{
			version(21, 0, ""), version(22, time.Second, "x"),
			{Type: watch.Added, GVK: schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, Object: secret, ResourceVersion: 30, At: clock.Epoch.Add(time.Second)},
		},
		Verdicts: []check.Verdict{{Property: "no-hot-loop", At: 10 * time.Second, Detail: "ConfigMap default/p and Secret default/tls written 300 times"}},
	}
	var labels []string
	for _, e := range story.Build(input).Events {
		labels = append(labels, e.Label)
	}
	for _, want := range []string{
		"stale read of Secret default/tls: not found, current rv=30",
		"stale read of ConfigMap default/p: saw rv=21, current 22",
	} {
		if !contains(labels, want) {
			t.Errorf("no event %q in %q", want, labels)
		}
	}
}
