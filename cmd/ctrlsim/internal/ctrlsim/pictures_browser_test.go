package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ctrlsim/ctrlsim/internal/browsertest"
)

// overlap is two texts of a picture whose rendered boxes intersect.
type overlap struct {
	A, B string
}

// overlapsJS lists the pairs of texts of the loaded SVG whose boxes, as the
// browser renders them (its own fonts, not the layout's estimate), overlap by
// more than a pixel each way.
const overlapsJS = `(() => {
	const ts = Array.from(document.querySelectorAll("text")).filter(t => t.textContent.trim() !== "");
	const bs = ts.map(t => t.getBBox());
	const out = [];
	for (let i = 0; i < ts.length; i++) {
		for (let j = i + 1; j < ts.length; j++) {
			const a = bs[i], b = bs[j];
			if (a.x + 1 < b.x + b.width && b.x + 1 < a.x + a.width && a.y + 1 < b.y + b.height && b.y + 1 < a.y + a.height) {
				out.push({A: ts[i].textContent, B: ts[j].textContent});
			}
		}
	}
	return out;
})()`

// Every picture of the catalogue, rendered in Chromium: no two of its texts
// overlap (labels, lane names, axis ticks, the list), and none runs off the
// picture, measured with the browser's fonts rather than the layout's
// estimate of their width.
func TestCataloguePicturesHaveNoOverlappingTexts(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium (make test and make test-browser run it)")
	}
	bin := browsertest.Chromium(t)
	pics, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "reports", "*", "*.svg"))
	if err != nil || len(pics) == 0 {
		t.Fatalf("no pictures under reports/: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1200), chromedp.Flag("disable-gpu", true))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	for _, pic := range pics {
		abs, err := filepath.Abs(pic)
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(bctx, chromedp.Navigate("file://"+abs)); err != nil {
			t.Fatalf("%s: %v", pic, err)
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[[]overlap](overlapsJS))
		if err != nil {
			t.Fatalf("%s: %v", pic, err)
		}
		n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("text").length`))
		if err != nil || n < 10 {
			t.Fatalf("%s: %d texts (%v): the picture did not load", pic, n, err)
		}
		for _, o := range got {
			t.Errorf("%s: %q overlaps %q", strings.TrimPrefix(pic, "../../../../"), o.A, o.B)
		}
		off, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
			const w = document.documentElement.width.baseVal.value;
			return Array.from(document.querySelectorAll("text")).filter(t => { const b = t.getBBox(); return b.x < -1 || b.x + b.width > w + 1; }).map(t => t.textContent);
		})()`))
		if err != nil {
			t.Fatalf("%s: %v", pic, err)
		}
		for _, text := range off {
			t.Errorf("%s: %q runs off the picture", strings.TrimPrefix(pic, "../../../../"), text)
		}
	}
}
