package workers

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Places hands out the places of an exploration and gathers their verdicts.
type Places struct {
	mu       sync.Mutex
	Checks   int
	Owns     func(k int) bool
	keep     bool // KeepGoing: every place is judged
	Next     int  // the lowest place not handed out yet
	V        *Verdicts
	prefix   int   // every owned place up to it is judged
	failure  error // a worker that failed the exploration
	invalid  bool  // a draw rapid rejected: the places must all be drawn in one process
	Finished chan struct{}
	closed   bool
	// inflight are, per worker process (from 2), the places handed to it
	// and not judged yet, and since when it has judged the first of them:
	// the progress line names a place judged long (longLines).
	inflight map[int]*inflight
	// announced are the signatures already printed as found (KeepGoing:
	// each distinct violation is printed when first judged).
	announced map[string]bool
	// known are the signatures seen before the random pass (saved plans',
	// the fault-free runs' and the sweep's): without KeepGoing a place
	// that shows only these does not stop the pass (nofault.go).
	known map[string]bool
	// place is the plan number of the random pass's k-th (Exploration.Place).
	place func(k int) int
	// progress says how far the workers have got (Exploration.Progress).
	progress Progress
}

type inflight struct {
	places []int
	since  time.Time
}

// handed records place k (0: none) handed to worker j.
func (ps *Places) handed(j, k int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if k == 0 {
		return
	}
	if ps.inflight == nil {
		ps.inflight = map[int]*inflight{}
	}
	in := ps.inflight[j]
	if in == nil {
		in = &inflight{}
		ps.inflight[j] = in
	}
	if len(in.places) == 0 {
		in.since = ps.progress.now()
	}
	in.places = append(in.places, k)
}

// judgedBy records worker j's verdict on place k: it judges its next place
// from now.
func (ps *Places) judgedBy(j, k int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if in := ps.inflight[j]; in != nil {
		in.places = slices.DeleteFunc(in.places, func(p int) bool { return p == k })
		in.since = ps.progress.now()
	}
}

// longLines name, for each worker process that has judged one place for
// longer than two progress periods by now, the worker and the place.
func (ps *Places) longLines(now time.Time) []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var js []int
	for j := range ps.inflight { // lint:order-independent sorted below
		js = append(js, j)
	}
	slices.Sort(js)
	var out []string
	for _, j := range js {
		in := ps.inflight[j]
		if took := now.Sub(in.since); len(in.places) > 0 && took > 2*ps.progress.Every {
			out = append(out, fmt.Sprintf("operatortest: worker %d has judged plan %d for %s (its plan is drawn in the worker process; -ctrlsim.workers=1 names it)", j, ps.planOf(in.places[0]), took.Round(time.Second)))
		}
	}
	return out
}

// announce prints, with KeepGoing, each signature of sigs not seen before
// as found at place k.
func (ps *Places) announce(k int, sigs []string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.keep {
		return
	}
	if ps.announced == nil {
		ps.announced = map[string]bool{}
	}
	for _, sig := range sigs {
		if !ps.announced[sig] {
			ps.announced[sig] = true
			ps.progress.Log("operatortest: found %s at plan %d (shrunk once the workers have judged every plan)", sig, ps.planOf(k))
		}
	}
}

// Give is the next place for a worker (0: none left).
func (ps *Places) Give() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return 0
	}
	for ps.Next <= ps.Checks && !ps.Owns(ps.Next) {
		ps.Next++
	}
	if ps.Next > ps.Checks || ps.V.Stop > 0 && ps.Next > ps.V.Stop {
		return 0
	}
	ps.Next++
	return ps.Next - 1
}

// Judged records place k's verdict (err: the world could not run it).
func (ps *Places) Judged(k int, sigs []string, err, cut string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	v := ps.V
	v.Judged[k] = true
	if cut != "" {
		v.Cuts[k] = cut
	}
	switch {
	case err != "":
		if v.Stop == 0 || k < v.Stop {
			v.Stop = k // the pass runs it again and meets the error itself
		}
	default:
		v.Sigs[k] = sigs
		if unknown(sigs, ps.known) && !ps.keep && (v.Stop == 0 || k < v.Stop) {
			v.Stop = k
		}
	}
	ps.settleLocked()
}

// settleLocked advances the judged prefix and closes the exploration when it
// is decided: every place judged, or (without KeepGoing) every place up to
// the first stopping one.
func (ps *Places) settleLocked() {
	v := ps.V
	for ps.prefix < ps.Checks && (v.Judged[ps.prefix+1] || !ps.Owns(ps.prefix+1)) {
		ps.prefix++
	}
	if ps.prefix == ps.Checks || !ps.keep && v.Stop > 0 && ps.prefix >= v.Stop {
		ps.closeLocked()
	}
}

// fail ends the exploration with err (the first one wins).
func (ps *Places) fail(err error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.failure == nil && !ps.closed {
		ps.failure = err
	}
	ps.closeLocked()
}

func (ps *Places) closeLocked() {
	if !ps.closed {
		ps.closed = true
		close(ps.Finished)
	}
}

func (ps *Places) count() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.V.Judged)
}

// Verdicts are what the workers judged: each place's signatures (nil: it
// held). Stop is the first place that stops a pass without KeepGoing (a
// violation or a world that cannot run it; 0: none), Decided when that was
// known (every place before it judged).
type Verdicts struct {
	Sigs    map[int][]string
	Cuts    map[int]string // the places whose plans were cut (search's cut.go)
	Excused map[string]int // the excuses the worker processes' verdicts named (search adds them to this process's)
	Judged  map[int]bool   // sigs' places and those the world could not run
	Stop    int
	Decided time.Duration
}

// unknown reports whether sigs has a signature known lacks (the first one
// not known is not empty): a place that stops a pass without KeepGoing.
func unknown(sigs []string, known map[string]bool) bool {
	for _, s := range sigs {
		if !known[s] {
			return s != ""
		}
	}
	return false
}

// planOf is the plan number of the random pass's k-th place.
func (ps *Places) planOf(k int) int {
	if ps.place == nil {
		return k
	}
	return ps.place(k)
}
