package story

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Layout of the static picture, in pixels.
const (
	svgLabelW = 232.0 // the lane names
	svgPlotX  = 240.0
	svgPlotW  = 860.0
	svgWidth  = svgPlotX + svgPlotW + 20
	rowH      = 15.0
	trackH    = 22.0
	laneGap   = 8.0
	charW     = 6.7 // monospace at 11px
	maxName   = 34
)

// placed is a label put in a row of a band without overlapping the others.
type placed struct {
	x, w   float64 // the text's left edge and width
	anchor float64 // the x it points at
	row    int
	text   string
	color  string
	bold   bool
	event  int // -1 when not an event's
}

// band allocates rows to labels, left to right, so that none overlap.
type band struct{ rows [][][2]float64 }

func (b *band) place(anchor float64, text string, lo, hi float64) (x float64, row int) {
	w := float64(len([]rune(text)))*charW + 4
	x = anchor + 5
	if x+w > hi {
		x = max(lo, anchor-5-w)
	}
	for row = 0; ; row++ {
		if row == len(b.rows) {
			b.rows = append(b.rows, nil)
		}
		free := true
		for _, iv := range b.rows[row] {
			if x < iv[1]+8 && iv[0] < x+w+8 {
				free = false
				break
			}
		}
		if free {
			b.rows[row] = append(b.rows[row], [2]float64{x, x + w})
			return x, row
		}
	}
}

func px(x float64) float64 { return svgPlotX + x/scaleWidth*svgPlotW }

// circled is the event number as a reader sees it in the picture and the
// list: ① to ⑩, then (11), (12), ... (the circled numbers past ⑩ are
// missing from common fonts, which draw them as empty boxes). The
// inspector's circled (inspector.js) keeps the same rule.
func circled(n int) string {
	if n >= 1 && n <= 10 {
		return string(rune('①' + n - 1))
	}
	return fmt.Sprintf("(%d)", n)
}

// WriteSVG draws the story as one static picture a reader can follow without
// hovering: lanes of processes (reconciles as bars, writes as ticks, crashes and
// restarts as marks) and of objects (their state as coloured spans), faults as
// hatched spans, the events of each violation numbered and labelled in place and
// joined by arrows, the verdict drawn where it happened, round ticks on an axis
// whose idle stretches are cut out, and the events listed below. Tooltips repeat
// each step's full line for viewers that show them.
func (s *Story) WriteSVG(w io.Writer) error {
	var b strings.Builder
	sc := s.Scale
	// Labels per lane.
	lanes := make([]band, len(s.Lanes))
	labels := make([][]placed, len(s.Lanes))
	put := func(l int, at time.Duration, text, color string, bold bool, ev int) {
		text = clipLabel(text, maxLabel)
		a := px(sc.X(at))
		x, row := lanes[l].place(a, text, svgPlotX, svgPlotX+svgPlotW)
		labels[l] = append(labels[l], placed{x: x, w: float64(len([]rune(text))) * charW, anchor: a, row: row, text: text, color: color, bold: bold, event: ev})
	}
	for e, ev := range s.Events {
		put(ev.Lane, ev.At, circled(e+1)+" "+ev.Label, roleColor(ev.Role), true, e)
	}
	for l, lane := range s.Lanes {
		for _, sp := range lane.Spans {
			if sp.Kind == SpanFault {
				put(l, sp.From, fmt.Sprintf("%s (%s–%s)", sp.Label, trace.FormatAt(sp.From), trace.FormatAt(sp.To)), "#b5651d", false, -1)
			}
		}
		// States too short to hold their name are named above them.
		var short []Span
		for _, sp := range lane.Spans {
			if sp.Kind == SpanState && float64(len(sp.Label))*charW+6 > px(sc.X(sp.To))-px(sc.X(sp.From)) {
				short = append(short, sp)
			}
		}
		if len(short) <= 8 {
			for _, sp := range short {
				put(l, sp.From, sp.Label, "#444444", false, -1)
			}
		}
		for _, m := range lane.Marks {
			if m.Label != "" && !s.isEvent(m.Step) {
				put(l, m.At, m.Label, m.Color, false, -1)
			}
		}
	}
	// The top band: verdicts and the heal.
	var top band
	var topLabels []placed
	for _, v := range s.Verdicts {
		text := "✗ " + v.Property + " violated"
		if v.Event >= 0 {
			text += fmt.Sprintf(" at %s", circled(v.Event+1))
		}
		if v.Judged != v.At {
			text += fmt.Sprintf(" (judged at %s)", trace.FormatAt(v.Judged))
		}
		a := px(sc.X(v.At))
		x, row := top.place(a, text, svgPlotX, svgPlotX+svgPlotW)
		topLabels = append(topLabels, placed{x: x, anchor: a, row: row, text: text, color: colorError, bold: true, event: -1})
	}
	if s.Heal >= 0 {
		a := px(sc.X(s.Heal))
		text := s.HealLabel()
		x, row := top.place(a, text, svgPlotX, svgPlotX+svgPlotW)
		topLabels = append(topLabels, placed{x: x, anchor: a, row: row, text: text, color: "#666666", event: -1})
	}
	y := 30.0
	topY := y + 8
	y = topY + rowH*float64(len(top.rows)) + 6
	plotTop := y
	laneY := make([]float64, len(s.Lanes)) // the top of each lane's track
	laneTop := make([]float64, len(s.Lanes))
	for l := range s.Lanes {
		laneTop[l] = y
		laneY[l] = y + rowH*float64(len(lanes[l].rows)) + 4
		y = laneY[l] + trackH + laneGap
	}
	axisY := y + 4
	// The event list and the legend below the axis.
	listY := axisY + 40
	var list []string
	var colors []string // of list's lines
	listed := func(color string, lines ...string) {
		for _, l := range lines {
			list, colors = append(list, l), append(colors, color)
		}
	}
	for _, l := range s.StepLines() {
		listed("black", wrap(l, 150)...)
	}
	for _, v := range s.Verdicts {
		listed(colorError, wrap(fmt.Sprintf("✗ %s: %s", v.Property, v.Detail), 150)...)
	}
	for _, n := range s.Notes {
		listed("#555555", wrap(n, 150)...)
	}
	legendLines := 1
	if len(s.Absences) > 0 {
		legendLines++ // the grey ticks' line: one line would run off the picture
	}
	height := listY + rowH*float64(len(list)+1+legendLines) + 10

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono,Menlo,Consolas,monospace" font-size="11">`+"\n", svgWidth, height, svgWidth, height)
	b.WriteString(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fde2c8"/><line x1="0" y1="0" x2="0" y2="6" stroke="#f4a261" stroke-width="3"/></pattern>` +
		`<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#7a4fa0"/></marker></defs>` + "\n")
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", escape(s.Title))
	// Lane backgrounds and names.
	for l, lane := range s.Lanes {
		fill := "#f7f7f7"
		switch lane.Kind {
		case LaneObject:
			fill = "#f1f5fb"
		case LaneWorkload, LaneAPIServer:
			fill = "#f8f4fb"
		}
		fmt.Fprintf(&b, `<rect x="4" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", laneTop[l]-2, svgWidth-8, laneY[l]+trackH-laneTop[l]+4, fill)
		name, sub := laneNames(lane)
		fmt.Fprintf(&b, `<text x="10" y="%.1f" font-weight="bold">%s</text>`+"\n", laneY[l]+10, escape(clip(name)))
		fmt.Fprintf(&b, `<text x="10" y="%.1f" fill="#777777" font-size="10">%s</text>`+"\n", laneY[l]+21, escape(clip(sub)))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", svgPlotX, laneY[l]+trackH/2, svgPlotX+svgPlotW, laneY[l]+trackH/2)
	}
	// Spans: states fill the track, faults are hatched behind, reconciles are bars.
	for l, lane := range s.Lanes {
		ty := laneY[l]
		for _, sp := range lane.Spans {
			x0, x1 := px(sc.X(sp.From)), px(sc.X(sp.To))
			switch sp.Kind {
			case SpanFault:
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="url(#hatch)" opacity="0.8"><title>%s</title></rect>`+"\n", x0, ty+trackH-7, max(x1-x0, 3), 7.0, escape(sp.Label))
			case SpanState:
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="white"><title>%s from %s</title></rect>`+"\n", x0, ty+1, max(x1-x0, 2), trackH-2, sp.Color, escape(sp.Label), trace.FormatAt(sp.From))
				if w := x1 - x0; float64(len(sp.Label))*charW+6 <= w {
					fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x0+3, ty+trackH/2+4, escape(sp.Label))
				}
			case SpanReconcile:
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="8" rx="2" fill="%s" opacity="0.85"><title>%s</title></rect>`+"\n", x0, ty+trackH/2-4, max(x1-x0, 3), sp.Color, escape(s.in.Steps[sp.Step].String()))
			}
		}
	}
	// Breaks in the axis: idle time cut out.
	for _, bx := range sc.Breaks() {
		x := px(bx)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" opacity="0.9"/>`+"\n", x-5, plotTop, 10.0, axisY-plotTop)
		fmt.Fprintf(&b, `<path d="M%.1f %.1f l-4 12 m10 -12 l-4 12" stroke="#555555"/>`+"\n", x+1, axisY-6)
	}
	// Marks.
	for l, lane := range s.Lanes {
		cy := laneY[l] + trackH/2
		for _, m := range lane.Marks {
			x := px(sc.X(m.At))
			tip := escape(m.Tip)
			switch m.Shape {
			case ShapeCross:
				fmt.Fprintf(&b, `<path d="M%.1f %.1f l10 10 m0 -10 l-10 10" stroke="%s" stroke-width="2.5"><title>%s</title></path>`+"\n", x-5, cy-5, m.Color, tip)
			case ShapeRestart:
				fmt.Fprintf(&b, `<path d="M%.1f %.1f l8 5 l-8 5 z" fill="%s"><title>%s</title></path>`+"\n", x-3, cy-5, m.Color, tip)
			case ShapeTick:
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"><title>%s</title></line>`+"\n", x, cy-8, x, cy+8, m.Color, tip)
			case ShapeDiamond:
				fmt.Fprintf(&b, `<path d="M%.1f %.1f l5 5 l-5 5 l-5 -5 z" fill="%s"><title>%s</title></path>`+"\n", x, cy-5, m.Color, tip)
			default:
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`+"\n", x, cy, m.Color, tip)
			}
		}
	}
	// The heal and the verdicts: vertical lines with their labels on top.
	for _, t := range topLabels {
		dash := "5,3"
		if t.color == colorError {
			dash = "2,2"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="%s"/>`+"\n", t.anchor, topY+rowH*float64(t.row)+3, t.anchor, axisY, t.color, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s"%s>%s</text>`+"\n", t.x, topY+rowH*float64(t.row)+11, t.color, boldAttr(t.bold), escape(t.text))
	}
	// Links between events.
	for _, lk := range s.Links {
		a, c := s.Events[lk.From], s.Events[lk.To]
		x0, y0 := px(sc.X(a.At)), laneY[a.Lane]+trackH/2
		x1, y1 := px(sc.X(c.At)), laneY[c.Lane]+trackH/2
		bend := -28.0
		if a.Lane != c.Lane {
			bend = 0
		}
		fmt.Fprintf(&b, `<path d="M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f" fill="none" stroke="#7a4fa0" stroke-width="1.5" marker-end="url(#arrow)"><title>%s</title></path>`+"\n",
			x0, y0, x0+(x1-x0)/3, y0+(y1-y0)/3+bend, x0+2*(x1-x0)/3, y0+2*(y1-y0)/3+bend, x1-2, y1, escape(lk.Label))
	}
	// Events: a ring at the step, the number, the label in its row with a leader.
	for l := range s.Lanes {
		for _, p := range labels[l] {
			ly := laneTop[l] + rowH*float64(p.row) + 11
			if p.event >= 0 {
				ev := s.Events[p.event]
				cy := laneY[l] + trackH/2
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="7" fill="none" stroke="%s" stroke-width="2"/>`+"\n", p.anchor, cy, roleColor(ev.Role))
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="0.8"/>`+"\n", p.anchor, ly+2, p.anchor, cy-7, roleColor(ev.Role))
			} else {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="0.5" stroke-dasharray="1,2"/>`+"\n", p.anchor, ly+2, p.anchor, laneY[l]+2, p.color)
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="13" fill="white" opacity="0.85"/>`+"\n", p.x-1, ly-10, p.w+2)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s"%s>%s</text>`+"\n", p.x, ly, p.color, boldAttr(p.bold), escape(p.text))
		}
	}
	// The axis.
	for _, g := range sc.Segments {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", px(g.X), axisY, px(g.X+g.W), axisY)
	}
	lastX := -1e9
	for _, t := range sc.Ticks(90) {
		x := px(t.X)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x, axisY, x, axisY+4)
		w := float64(len([]rune(t.Label))) * charW
		if x-w/2 < lastX+6 {
			continue // no room for this label
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, axisY+16, escape(t.Label))
		lastX = x + w/2
	}
	fmt.Fprintf(&b, `<text x="10" y="%.1f" fill="#777777">time (// = idle, cut)</text>`+"\n", axisY+16)
	// The events, listed.
	ly := listY
	if len(list) > 0 {
		fmt.Fprintf(&b, `<text x="10" y="%.1f" font-weight="bold">The violation, step by step</text>`+"\n", ly)
		ly += rowH + 2
	}
	for n, line := range list {
		color := colors[n]
		fmt.Fprintf(&b, `<text x="10" y="%.1f" fill="%s" xml:space="preserve">%s</text>`+"\n", ly, color, escape(line))
		ly += rowH
	}
	legend := []string{"bars: reconciles (green ok, red error or crashed, blue requeue) · ticks: writes · ×: crash · ▶: start, restart · ◆: plan step · hatched: fault · lanes of objects: state by version"}
	if len(s.Absences) > 0 {
		legend = append(legend, "grey ticks: the fault-free run's writes this run never made")
	}
	for i, l := range legend {
		fmt.Fprintf(&b, `<text x="10" y="%.1f" fill="#777777" font-size="10">%s</text>`+"\n", ly+6+rowH*float64(i), escape(l))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// StepLines are the violation's steps as the picture lists them, one a line
// in time order: the number, the time, who, and what ("② 2.004s
// pipeline-controller/pipeline stale read of ..."). A failure's text can
// print them as they are.
func (s *Story) StepLines() []string {
	var out []string
	for e, ev := range s.Events {
		st := s.in.Steps[ev.Step]
		who := st.Process
		if st.Controller != "" {
			who += "/" + st.Controller
		}
		out = append(out, fmt.Sprintf("%s %10s  %-28s %s", circled(e+1), trace.FormatAt(ev.At), who, ev.Label))
	}
	return out
}

// laneNames are a lane's two lines of name: what it is and whose.
func laneNames(l Lane) (string, string) {
	name, sub := l.Name, l.Kind
	switch {
	case l.Kind == LaneProcess && strings.HasPrefix(l.Name, l.Group+"/"):
		name, sub = strings.TrimPrefix(l.Name, l.Group+"/"), "in "+l.Group
	case l.Kind == LaneProcess:
		sub = "process"
	case l.Kind == LaneObject && l.Note == noteMissing:
		return name, "object: this run never made it"
	case l.Kind == LaneObject:
		sub = "object: state over time"
		if l.Group == "Helm release" {
			sub = "newest revision, status, chart"
		}
	}
	if l.Note != "" {
		sub += ", " + l.Note
	}
	return name, sub
}

// wrap breaks a line at spaces into lines of at most n characters.
func wrap(line string, n int) []string {
	var out []string
	for len([]rune(line)) > n {
		r := []rune(line)
		head := string(r[:n])
		cut := strings.LastIndex(head, " ")
		if cut < len(head)-len(strings.TrimLeft(head, " ")) {
			// No space after the indent (a long value, base64 say): cut
			// at n, or the indent would be cut off for ever.
			cut = len(head)
		}
		out = append(out, line[:cut])
		line = "    " + strings.TrimLeft(line[cut:], " ")
	}
	return append(out, line)
}

// maxLabel bounds a label drawn in place, in characters: the rest of a long
// one (an error's message) is in the list below and in the tooltip.
const maxLabel = 96

// clipLabel is s cut to n characters, with "…" where it was cut.
func clipLabel(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func clip(s string) string {
	if r := []rune(s); len(r) > maxName {
		return "…" + string(r[len(r)-maxName+1:])
	}
	return s
}

func (s *Story) isEvent(step int) bool {
	if step < 0 {
		return false
	}
	for _, e := range s.Events {
		if e.Step == step {
			return true
		}
	}
	return false
}

func roleColor(role string) string {
	switch role {
	case RoleCause:
		return "#c2410c"
	case RoleFault:
		return "#7f1d1d"
	case RoleUser:
		return colorAction
	}
	return colorError
}

func boldAttr(b bool) string {
	if b {
		return ` font-weight="bold"`
	}
	return ""
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
