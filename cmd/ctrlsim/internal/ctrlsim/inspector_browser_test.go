package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ctrlsim/ctrlsim/internal/browsertest"
)

type shown struct {
	N       string  `json:"n"`
	Text    string  `json:"text"`
	Visible bool    `json:"visible"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

// The inspector page of a caught run, as a person sees it: it loads in Chromium
// without console errors, the violation's events are on the timeline and in the
// explanation, visible, and clicking one shows the step's request, the object as
// the client saw it and as the server had it, and the log-lines section.
func TestInspectorInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium (make test and make test-browser run it)")
	}
	bin := browsertest.Chromium(t)
	page := filepath.Join(t.TempDir(), "inspector.html")
	var out bytes.Buffer
	// The double promotion of pipeline/app-event-race (reports/pipeline-app-event-race/buggy.plan).
	args := []string{"--entry", "pipeline/app-event-race", "--variant", "buggy",
		"--plan-text", "seed 0\nat 0s publish version=v2\nat 0s app-event env=dev\n", "--html", page}
	if err := cmdReplay(args, &out); err != nil {
		t.Fatalf("replay: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "at-most-once: violated") {
		t.Fatalf("the plan no longer violates at-most-once; pick a caught plan for this test:\n%s", out.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1200), chromedp.Flag("disable-gpu", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Do(bctx); err != nil { // start the browser and the tab
		t.Fatalf("starting %s: %v", bin, err)
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, string(a.Value)+a.Description)
			}
			problems = append(problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(parts, " ")))
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("exception: %s", e.ExceptionDetails.Text))
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	visible := `(sel) => Array.from(document.querySelectorAll(sel)).map(e => {
		const r = e.getBoundingClientRect(), s = getComputedStyle(e);
		return {n: e.getAttribute("data-event") || e.getAttribute("data-story-event") || "", text: e.textContent,
			visible: r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none" && r.right > 0 && r.bottom > 0,
			x: r.left + r.width/2, y: r.top + r.height/2};
	})`
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	onPlot, err := chromedp.Run(bctx, chromedp.Evaluate[[]shown]("("+visible+`)("#plot g.event")`))
	if err != nil {
		t.Fatal(err)
	}
	inList, err := chromedp.Run(bctx, chromedp.Evaluate[[]shown]("("+visible+`)("#verdicts li[data-story-event]")`))
	if err != nil {
		t.Fatal(err)
	}
	verdicts, err := chromedp.Run(bctx, chromedp.Text("#verdicts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(onPlot) < 3 || len(onPlot) != len(inList) {
		t.Fatalf("want at least 3 events of the violation on the timeline and as many listed, got %d and %d", len(onPlot), len(inList))
	}
	for _, want := range []string{"1st promote", "2nd promote", "stale read of Pipeline default/podinfo: saw rv="} {
		found := false
		for _, e := range inList {
			if strings.Contains(e.Text, want) {
				found = found || e.Visible
			}
		}
		if !found {
			t.Errorf("no visible event %q in the explanation: %+v", want, inList)
		}
	}
	for _, e := range onPlot {
		if !e.Visible {
			t.Errorf("event %s on the timeline is not visible: %+v", e.N, e)
		}
	}
	if !strings.Contains(verdicts, "at-most-once violated") || !strings.Contains(verdicts, "happened twice") {
		t.Errorf("the violation is not explained: %q", verdicts)
	}
	// The labels on the timeline (the numbered ones, the plan's steps, the
	// verdict and the heal) do not overlap, as Chromium draws them, and the
	// numbers follow time.
	labelOverlaps, err := chromedp.Run(bctx, chromedp.Evaluate[[]overlap](strings.Replace(overlapsJS, `document.querySelectorAll("text")`, `document.querySelectorAll("#plot text")`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range labelOverlaps {
		t.Errorf("on the timeline, label %q overlaps %q", o.A, o.B)
	}
	times, err := chromedp.Run(bctx, chromedp.Evaluate[[]float64](`D_events_at = JSON.parse(document.getElementById("data").textContent).events.map(e => e.At)`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(times); i++ {
		if times[i] < times[i-1] {
			t.Errorf("event %d happened before event %d: the numbers do not follow time (%v)", i+1, i, times)
		}
	}
	// At 1,400 px the steps table shows its object column: the column's
	// header and the story's rows' objects are inside the table's view.
	objectShown, err := chromedp.Run(bctx, chromedp.Evaluate[[]bool](`(() => {
		const view = document.getElementById("steps-scroll").getBoundingClientRect();
		const cells = [document.querySelector("#steps th:nth-child(5)")].concat(Array.from(document.querySelectorAll("#steps tr.story td.obj")));
		return cells.map(c => { const r = c.getBoundingClientRect(); return r.width > 0 && r.left >= view.left && r.right <= view.right; });
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(objectShown) < 2 {
		t.Errorf("the steps table has no object column or no story row: %v", objectShown)
	}
	for i, ok := range objectShown {
		if !ok {
			t.Errorf("at 1,400 px, object cell %d of the steps table (0: the header) is outside the table's view", i)
		}
	}
	// The steps table does not open with the other processes' start-up
	// lines (kube-controller-manager's), which the text timeline folds too;
	// a checkbox shows them.
	startup, err := chromedp.Run(bctx, chromedp.Evaluate[[]int](`(() => {
		const rows = Array.from(document.querySelectorAll("#steps tbody tr"));
		const isStartup = r => r.children[2].textContent.startsWith("kube-controller-manager") && ["log", "start"].includes(r.children[3].textContent);
		const shown = rows.filter(r => r.style.display !== "none" && isStartup(r)).length;
		document.getElementById("show-startup").click();
		const all = rows.filter(r => r.style.display !== "none" && isStartup(r)).length;
		document.getElementById("show-startup").click();
		return [shown, all];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if startup[0] != 0 || startup[1] == 0 {
		t.Errorf("kube-controller-manager's start-up lines in the steps table: %d shown by default, %d with the checkbox; want 0 and some", startup[0], startup[1])
	}
	// Click the stale read on the timeline: the detail shows the two versions.
	stale := ""
	for _, e := range inList {
		if strings.Contains(e.Text, "stale read") {
			stale = e.N
		}
	}
	if err := chromedp.Do(bctx, chromedp.Click(fmt.Sprintf(`#plot g.event[data-event="%s"] circle`, stale))); err != nil {
		t.Fatalf("clicking the stale read: %v", err)
	}
	detail, err := chromedp.Run(bctx, chromedp.Text("#detail"))
	if err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cached-get Pipeline default/podinfo", "Stale: the caller read rv=", "As the client saw it (rv=", "As the server had it (rv=", "Log lines around it", "No log line of pipeline-controller within a second of this step"} {
		if !strings.Contains(detail, want) {
			t.Errorf("after clicking the stale read, the detail lacks %q:\n%s", want, detail)
		}
	}
	shot := filepath.Join(browsertest.Artifacts(t), "inspector-pipeline-app-event-race-buggy.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page logged to the console or threw:\n%s", strings.Join(problems, "\n"))
	}
}
