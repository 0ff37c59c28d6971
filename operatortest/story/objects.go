package story

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// maxObjectLanes bounds the object lanes of a picture: the ones that matter.
const maxObjectLanes = 6

// ObjectKey is how the trace names an object: "Kind namespace/name", or
// "Kind name" when cluster-scoped.
func ObjectKey(ev apiserver.Event) string {
	if ns := ev.Object.GetNamespace(); ns != "" {
		return ev.GVK.Kind + " " + ns + "/" + ev.Object.GetName()
	}
	return ev.GVK.Kind + " " + ev.Object.GetName()
}

// helmRelease says whether ev is a Helm release record (a Secret of type
// helm.sh/release.v1, helm's storage driver) and of which release.
func helmRelease(ev apiserver.Event) (sec *corev1.Secret, release string, ok bool) {
	sec, ok = ev.Object.(*corev1.Secret)
	if !ok || sec.Type != "helm.sh/release.v1" || sec.Labels["name"] == "" {
		return nil, "", false
	}
	return sec, "Helm release " + sec.Namespace + "/" + sec.Labels["name"], true
}

// objectLanes adds a lane for each object that matters, with its state over time:
// the objects the violations name and their owners, the objects the events read, every Helm
// release, and, when that leaves room, the objects whose phase or readiness the
// controllers changed.
func (s *Story) objectLanes() {
	var want []string
	add := func(k string) {
		if !slices.Contains(want, k) && len(want) < maxObjectLanes {
			want = append(want, k)
		}
	}
	keys := make([]string, len(s.in.Log))
	for i, ev := range s.in.Log {
		keys[i] = ObjectKey(ev)
		if _, rel, ok := helmRelease(ev); ok {
			keys[i] = rel
		}
	}
	for _, v := range s.Verdicts {
		for _, k := range keys {
			if mentions(v.Detail, k) {
				add(k)
			}
		}
		named := s.namedObjects(v.Detail) // generated names' objects too
		for _, k := range named {
			add(k)
		}
		for _, k := range s.ownersOf(named) {
			add(k)
		}
	}
	byVersion := map[string]bool{} // objects read stale: their lanes show each version
	for _, e := range s.Events {
		if e.Role == RoleCause {
			add(s.in.Steps[e.Step].Object)
			byVersion[s.in.Steps[e.Step].Object] = true
		}
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "Helm release ") {
			add(k)
		}
	}
	if len(want) < 2 {
		// Objects the processes wrote whose state (not only their version) changed.
		written := map[string]bool{}
		for _, st := range s.in.Steps {
			if st.Process != "" && st.Process != "admin" && trace.IsWrite(st.Op) {
				written[st.Object] = true
			}
		}
		states := map[string][]string{}
		for i, ev := range s.in.Log {
			if written[keys[i]] && !strings.HasPrefix(keys[i], "Helm release ") {
				st, _ := objectState(ev)
				if st != "" && (len(states[keys[i]]) == 0 || states[keys[i]][len(states[keys[i]])-1] != st) {
					states[keys[i]] = append(states[keys[i]], st)
				}
			}
		}
		for _, k := range keys {
			if len(states[k]) > 1 {
				add(k)
			}
		}
	}
	end := s.runEnd()
	for _, k := range want {
		var idx []int
		for i := range s.in.Log {
			if keys[i] == k {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		kind, _, _ := strings.Cut(k, " ")
		if strings.HasPrefix(k, "Helm release ") {
			kind = "Helm release"
		}
		l := s.lane("object:"+k, k, LaneObject, kind)
		if strings.HasPrefix(k, "Helm release ") {
			s.Lanes[l].Spans, s.Lanes[l].Marks = s.releaseSpans(idx, end)
		} else {
			s.Lanes[l].Spans, s.Lanes[l].Marks = s.versionSpans(idx, end, byVersion[k])
		}
	}
}

// runEnd is when the run ended: its last step, or the latest judgement.
func (s *Story) runEnd() time.Duration {
	var end time.Duration
	if n := len(s.in.Steps); n > 0 {
		end = s.in.Steps[n-1].At
	}
	for _, v := range s.Verdicts {
		end = max(end, v.Judged)
	}
	return end
}

func (s *Story) at(ev apiserver.Event) time.Duration { return ev.At.Sub(s.in.Start) }

// versionSpans are one object's states: one span per run of versions in the
// same state, ending where the object was deleted.
func (s *Story) versionSpans(idx []int, end time.Duration, byVersion bool) ([]Span, []Mark) {
	var spans []Span
	var marks []Mark
	for _, i := range idx {
		ev := s.in.Log[i]
		at := s.at(ev)
		if n := len(spans); n > 0 && spans[n-1].To < 0 {
			spans[n-1].To = at
		}
		if ev.Type == watch.Deleted {
			marks = append(marks, Mark{At: at, Step: -1, Shape: ShapeCross, Color: colorStart, Label: "gone",
				Tip: fmt.Sprintf("%s deleted (rv=%d)", ObjectKey(ev), ev.ResourceVersion)})
			continue
		}
		state, color := objectState(ev)
		label := state
		if byVersion || state == "" {
			state = ""
			label, color = fmt.Sprintf("rv %d", ev.ResourceVersion), versionColor(len(spans))
		} else if n := len(spans); n > 0 && spans[n-1].Label == state && spans[n-1].To == at {
			spans[n-1].To = -1 // same state: the span goes on
			continue
		}
		spans = append(spans, Span{From: at, To: -1, Kind: SpanState, Label: label, Color: color, Step: -1, RV: ev.ResourceVersion})
	}
	if n := len(spans); n > 0 && spans[n-1].To < 0 {
		spans[n-1].To = max(end, spans[n-1].From)
	}
	return spans, marks
}

func versionColor(n int) string {
	if n%2 == 0 {
		return "#cfd8e3"
	}
	return "#e4eaf1"
}

// objectState is an object's state at one version, for a lane: deleting (with its
// finalizers), else its status.phase, else its Ready (or Installed) condition.
func objectState(ev apiserver.Event) (string, string) {
	if ev.Object.GetDeletionTimestamp() != nil {
		if f := ev.Object.GetFinalizers(); len(f) > 0 {
			return fmt.Sprintf("deleting (%d finalizers)", len(f)), "#f1a7a0"
		}
		return "deleting", "#f1a7a0"
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev.Object)
	if err != nil {
		return "", ""
	}
	status, _ := u["status"].(map[string]any)
	if p, ok := status["phase"].(string); ok && p != "" {
		return p, phaseColor(p)
	}
	conds, _ := status["conditions"].([]any)
	for _, want := range []string{"Ready", "Installed", "Progressing"} {
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == want {
				st, _ := m["status"].(string)
				color := "#b7e4c7"
				if st != "True" {
					color = "#ffd6a5"
				}
				label := want + "=" + st
				if r, _ := m["reason"].(string); r != "" && st != "True" {
					label += " " + r
				}
				return label, color
			}
		}
	}
	return "", ""
}

func phaseColor(p string) string {
	switch strings.ToLower(p) {
	case "active", "running", "succeeded", "bound", "ready", "deployed":
		return "#b7e4c7"
	case "failed", "error":
		return "#f1a7a0"
	case "terminating":
		return "#f1a7a0"
	}
	return "#ffd6a5"
}

// releaseSpans are a Helm release's states: at each change of any of its record
// Secrets, the newest revision and its status ("v2 pending-upgrade 3.0.0").
func (s *Story) releaseSpans(idx []int, end time.Duration) ([]Span, []Mark) {
	type rev struct {
		status, chart string
	}
	revs := map[int]rev{}
	var spans []Span
	for _, i := range idx {
		ev := s.in.Log[i]
		sec, _, _ := helmRelease(ev)
		n, _ := strconv.Atoi(sec.Labels["version"])
		if ev.Type == watch.Deleted {
			delete(revs, n)
		} else {
			revs[n] = rev{status: sec.Labels["status"], chart: chartVersion(sec)}
		}
		at := s.at(ev)
		newest := 0
		for v := range revs { // lint:order-independent a maximum
			newest = max(newest, v)
		}
		label, color := "no release", "#eeeeee"
		if newest > 0 {
			r := revs[newest]
			label = fmt.Sprintf("v%d %s", newest, r.status)
			if r.chart != "" {
				label += " " + r.chart
			}
			color = releaseColor(r.status)
		}
		if n := len(spans); n > 0 {
			if spans[n-1].Label == label {
				continue
			}
			spans[n-1].To = at
		}
		spans = append(spans, Span{From: at, To: -1, Kind: SpanState, Label: label, Color: color, Step: -1, RV: ev.ResourceVersion})
	}
	if n := len(spans); n > 0 {
		spans[n-1].To = max(end, spans[n-1].From)
	}
	return spans, nil
}

func releaseColor(status string) string {
	switch {
	case status == "deployed":
		return "#b7e4c7"
	case strings.HasPrefix(status, "pending"), status == "uninstalling":
		return "#ffd6a5"
	case status == "failed":
		return "#f1a7a0"
	}
	return "#dddddd"
}

// chartVersion is the chart version in a release record: helm's (base64 of gzip
// of the release's JSON) or plain JSON, the release at the top or under
// "release" (the simulated driver's record).
func chartVersion(sec *corev1.Secret) string {
	raw := sec.Data["release"]
	if b, err := base64.StdEncoding.DecodeString(string(raw)); err == nil {
		raw = b
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(raw)); err == nil {
			if b, err := io.ReadAll(io.LimitReader(zr, 1<<24)); err == nil {
				raw = b
			}
		}
	}
	type chart struct {
		Version  string `json:"version"`
		Metadata struct {
			Version string `json:"version"`
		} `json:"metadata"`
	}
	var r struct {
		Chart   chart `json:"chart"`
		Release struct {
			Chart chart `json:"chart"`
		} `json:"release"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return ""
	}
	for _, c := range []chart{r.Chart, r.Release.Chart} {
		if c.Metadata.Version != "" {
			return c.Metadata.Version
		}
		if c.Version != "" {
			return c.Version
		}
	}
	return ""
}
