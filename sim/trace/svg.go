package trace

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Mark is a vertical line on an SVG timeline (the heal, a violation).
type Mark struct {
	At    time.Duration
	Label string
	Color string
}

// WriteSVG draws the kept steps as a timeline: one lane per process/controller, a
// dot per reconcile result (green ok, red error, blue requeue), a cross per crash,
// and the marks as vertical lines. The picture depends only on the steps, so it is
// as deterministic as the trace.
func (t *Trace) WriteSVG(w io.Writer, title string, marks []Mark) error {
	type dot struct {
		at    time.Duration
		lane  int
		color string
		shape string
		tip   string
	}
	var lanes []string
	laneOf := map[string]int{}
	lane := func(name string) int {
		if i, ok := laneOf[name]; ok {
			return i
		}
		laneOf[name] = len(lanes)
		lanes = append(lanes, name)
		return len(lanes) - 1
	}
	var dots []dot
	var end time.Duration
	for _, s := range t.steps {
		end = max(end, s.At)
		switch {
		case s.Op == "result":
			color := "#2a9d3f"
			switch {
			case strings.HasPrefix(s.Result, "error"), strings.HasPrefix(s.Result, "terminal"):
				color = "#d62828"
			case strings.HasPrefix(s.Result, "requeue"):
				color = "#1d6fd6"
			}
			dots = append(dots, dot{s.At, lane(s.Process + "/" + s.Controller), color, "circle", s.Object + ": " + s.Result})
		case s.Op == "crash" || s.Op == "restart" || s.Op == "start":
			color := map[string]string{"crash": "#d62828", "restart": "#e09f00", "start": "#888888"}[s.Op]
			dots = append(dots, dot{s.At, lane(s.Process), color, "cross", s.Op + ": " + s.Result})
		case s.Op == "action":
			dots = append(dots, dot{s.At, lane("workload"), "#6a4c93", "circle", s.Object + ": " + s.Result})
		case s.Process != "" && s.Process != "admin" && s.Controller == "" && s.Op != "heal" && s.Op != "hold" && s.Op != "release" && s.Op != "fault" && !strings.HasPrefix(s.Op, "cached-"):
			// A model's own steps (a promotion system's side effects, say).
			dots = append(dots, dot{s.At, lane(s.Process), "#555555", "circle", s.Op + " " + s.Object + ": " + s.Result})
		}
	}
	if end == 0 {
		end = time.Second
	}
	// Marks past the last activity (liveness judged at the end of the heal budget)
	// are drawn at the right edge, so the activity keeps the width.
	end += end / 20
	const left, width, laneH, top = 220, 760, 28, 40
	height := top + laneH*max(len(lanes), 1) + 40
	x := func(at time.Duration) float64 { return left + float64(width)*float64(at)/float64(end) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" font-size="12">`+"\n", left+width+20, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14">%s</text>`+"\n", escape(title))
	for i, name := range lanes {
		y := top + laneH*i + laneH/2
		if len(name) > 28 { // keep the plot clear: the end of a long name says most
			name = "…" + name[len(name)-27:]
		}
		fmt.Fprintf(&b, `<text x="10" y="%d">%s</text>`+"\n", y+4, escape(name))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#dddddd"/>`+"\n", left, y, left+width, y)
	}
	axisY := top + laneH*max(len(lanes), 1) + 10
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, axisY, left+width, axisY)
	for i := 0; i <= 4; i++ {
		at := end * time.Duration(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(at), axisY+16, FormatAt(at.Round(time.Millisecond)))
	}
	// Marks at the same instant share one line and one label.
	var merged []Mark
	for _, m := range marks {
		if n := len(merged); n > 0 && merged[n-1].At == m.At {
			merged[n-1].Label += ", " + m.Label
			continue
		}
		merged = append(merged, m)
	}
	for _, m := range merged {
		at, label := m.At, m.Label
		if at > end {
			at, label = end, fmt.Sprintf("%s (judged at %s)", m.Label, FormatAt(m.At))
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="4,3"/>`+"\n", x(at), top-8, x(at), axisY, m.Color)
		anchor, dx := "start", 3.0
		if x(at) > left+width*2/3 {
			anchor, dx = "end", -3
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="%s" text-anchor="%s">%s</text>`+"\n", x(at)+dx, top-10, m.Color, anchor, escape(label))
	}
	for _, d := range dots {
		y := top + laneH*d.lane + laneH/2
		if d.shape == "cross" {
			fmt.Fprintf(&b, `<path d="M%.1f %d l8 8 m0 -8 l-8 8" stroke="%s" stroke-width="2" transform="translate(-4,-4)"><title>%s</title></path>`+"\n", x(d.at), y, d.color, escape(d.tip))
			continue
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="3.5" fill="%s"><title>%s</title></circle>`+"\n", x(d.at), y, d.color, escape(d.tip))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
