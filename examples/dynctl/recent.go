package dynctl

import (
	"container/list"
	"sync"
	"time"
)

// recent is an expiring LRU cache as resource-graph operators keep one (of
// what they wrote lately): bounded in size, and its entries expire after
// ttl, dropped by a janitor goroutine that newRecent starts and that ticks
// forever, as such libraries' janitors do when nothing calls their Close.
type recent struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	order   *list.List // of *entry, most recent first
	entries map[string]*list.Element
}

type entry struct {
	key string
	at  time.Time
}

func newRecent(ttl, every time.Duration, max int) *recent {
	r := &recent{ttl: ttl, max: max, order: list.New(), entries: map[string]*list.Element{}}
	go r.janitor(every)
	return r
}

// add records key as written now and reports whether it was already
// written within the ttl.
func (r *recent) add(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if e, ok := r.entries[key]; ok {
		fresh := now.Sub(e.Value.(*entry).at) < r.ttl
		e.Value.(*entry).at = now
		r.order.MoveToFront(e)
		return fresh
	}
	r.entries[key] = r.order.PushFront(&entry{key, now})
	if r.order.Len() > r.max {
		last := r.order.Back()
		r.order.Remove(last)
		delete(r.entries, last.Value.(*entry).key)
	}
	return false
}

// janitor drops expired entries every tick, forever.
func (r *recent) janitor(every time.Duration) {
	for now := range time.Tick(every) {
		r.mu.Lock()
		for e := r.order.Back(); e != nil && now.Sub(e.Value.(*entry).at) >= r.ttl; e = r.order.Back() {
			r.order.Remove(e)
			delete(r.entries, e.Value.(*entry).key)
		}
		r.mu.Unlock()
	}
}
