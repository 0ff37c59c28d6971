package story

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

//go:embed inspector.js
var inspectorJS string

//go:embed inspector.css
var inspectorCSS string

// LogLine is one line a controller logged, for the inspector (the trace's "log"
// steps: package process routes controllers' logr lines there).
type LogLine struct {
	At         int64  `json:"at"` // nanoseconds of virtual time
	Process    string `json:"process"`
	Controller string `json:"controller,omitempty"`
	Text       string `json:"text"`
}

type jsonStep struct {
	trace.Step
	Line string `json:"line"`
	Lane int    `json:"lane"`
}

type jsonVersion struct {
	Key  string `json:"key"`
	Type string `json:"type"`
	At   int64  `json:"at"`
	YAML string `json:"yaml"`
}

type jsonTick struct {
	X     float64 `json:"x"`
	Label string  `json:"label"`
}

type jsonData struct {
	Title     string                 `json:"title"`
	Plan      string                 `json:"plan"`
	Width     float64                `json:"width"`
	Segments  []Segment              `json:"segments"`
	Ticks     []jsonTick             `json:"ticks"`
	Heal      int64                  `json:"heal"`
	HealLabel string                 `json:"healLabel"`
	Lead      []string               `json:"lead"`
	Notes     []string               `json:"notes"`
	Lanes     []Lane                 `json:"lanes"`
	Steps     []jsonStep             `json:"steps"`
	Events    []Event                `json:"events"`
	Links     []Link                 `json:"links"`
	Verdicts  []Verdict              `json:"verdicts"`
	Objects   map[string]jsonVersion `json:"objects"` // by resourceVersion
	Logs      []LogLine              `json:"logs"`
	HasLogs   bool                   `json:"hasLogs"`
}

// WriteHTML writes the run inspector: one self-contained HTML page (its script,
// style and data inline; nothing fetched) with the timeline zoomable and
// filterable by process, controller and object, every step clickable to show the
// request, the object as the client saw it and as it was stored (and their
// difference), the controllers' log lines around it (logs, when the trace has
// them), and the violation explained.
func (s *Story) WriteHTML(w io.Writer, logs []LogLine) error {
	d := jsonData{
		Title: s.Title, Width: s.Scale.Width, Segments: s.Scale.Segments, Heal: int64(s.Heal), HealLabel: s.HealLabel(), Notes: s.Notes, Lead: s.in.Lead,
		Lanes: s.Lanes, Events: s.Events, Links: s.Links, Verdicts: s.Verdicts,
		Objects: map[string]jsonVersion{}, Logs: logs, HasLogs: len(logs) > 0,
	}
	if s.in.Plan != nil {
		d.Plan = s.in.Plan.String()
	}
	for _, t := range s.Scale.Ticks(70) {
		d.Ticks = append(d.Ticks, jsonTick{X: t.X, Label: t.Label})
	}
	if d.Logs == nil {
		d.Logs = []LogLine{}
	}
	for i, st := range s.in.Steps {
		d.Steps = append(d.Steps, jsonStep{Step: st, Line: st.String(), Lane: s.LaneOf(i)})
	}
	for _, ev := range s.in.Log {
		obj, ok := ev.Object.DeepCopyObject().(client.Object)
		if !ok {
			continue
		}
		obj.SetManagedFields(nil)
		y, err := yaml.Marshal(obj)
		if err != nil {
			y = []byte("# cannot show: " + err.Error())
		}
		d.Objects[fmt.Sprint(ev.ResourceVersion)] = jsonVersion{Key: ObjectKey(ev), Type: string(ev.Type), At: int64(s.at(ev)), YAML: string(y)}
	}
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", escape(s.Title))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<style>\n" + inspectorCSS + "</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<header><h1>%s</h1><p class=\"sub\">ctrlsim run inspector: click any step, span or mark; ctrl+wheel or the buttons zoom; the checkboxes filter lanes.</p></header>\n", escape(s.Title))
	b.WriteString(`<main>
<section id="verdicts" aria-label="violations"></section>
<section id="controls"><span class="zoom"><button id="zoom-in" title="zoom in">+</button><button id="zoom-out" title="zoom out">−</button><button id="zoom-fit" title="fit">fit</button></span>
<span id="filters"></span></section>
<section id="timeline"><div id="names"></div><div id="plot-scroll"><svg id="plot" xmlns="http://www.w3.org/2000/svg"></svg></div></section>
<section id="lower"><div id="steps-pane"><div class="bar"><input id="step-filter" type="search" placeholder="filter steps (text)"> <label><input id="only-story" type="checkbox"> only the violation's steps</label> <label><input id="show-admin" type="checkbox"> admin calls</label> <label><input id="show-startup" type="checkbox"> start-up lines of the other processes</label></div><div id="steps-scroll"><table id="steps"><thead><tr><th>#</th><th>time</th><th>who</th><th>op</th><th>object</th><th>rv</th><th>result</th></tr></thead><tbody></tbody></table></div></div>
<div id="detail" aria-live="polite"><p class="hint">Select a step to see the request, the object as the client saw it and as it was stored, and the log lines around it.</p></div></section>
<section id="plan-pane"><h2>The plan</h2><pre id="plan"></pre></section>
</main>
`)
	b.WriteString("<script type=\"application/json\" id=\"data\">")
	b.Write(data)
	b.WriteString("</script>\n<script>\n" + inspectorJS + "</script>\n</body>\n</html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}
