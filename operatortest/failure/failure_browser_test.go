package failure_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ctrlsim/ctrlsim/internal/browsertest"
)

// A failure's inspector, as its author opens it: the page loads in Chromium
// without console errors, its first process lane is the operator's (the
// built-in processes after it, those that did nothing left out), and the
// violation is explained.
func TestAFailuresInspectorOpensWithTheOperatorFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium (make test runs it)")
	}
	bin := browsertest.Chromium(t)
	f := optest.FailingRun(t, t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-gpu", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			problems = append(problems, fmt.Sprintf("console.%s", e.Type))
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+f.Files.HTML), chromedp.WaitVisible(`body[data-ready="true"]`)); err != nil {
		t.Fatalf("loading %s: %v", f.Files.HTML, err)
	}
	lanes, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("div.lane")).map(e => e.getAttribute("title"))`))
	if err != nil {
		t.Fatal(err)
	}
	var procs []string
	for _, l := range lanes {
		if strings.Contains(l, "/") && !strings.Contains(l, " ") { // process/controller
			procs = append(procs, l)
		}
	}
	if len(procs) == 0 || !strings.HasPrefix(procs[0], "op/") {
		t.Errorf("the first process lane is not the operator's: %q", lanes)
	}
	for _, l := range procs {
		if strings.HasPrefix(l, "kube-controller-manager/namespace") {
			t.Errorf("a built-in controller that did nothing has a lane: %q", lanes)
		}
	}
	verdicts, err := chromedp.Run(bctx, chromedp.Text("#verdicts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(verdicts, "converges violated") {
		t.Errorf("the violation is not explained: %q", verdicts)
	}
	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(browsertest.Artifacts(t), "operatortest-failure-inspector.png")
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
