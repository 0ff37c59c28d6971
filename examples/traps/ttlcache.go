package traps

import (
	"sync"
	"time"
)

// TTLCache is an expiring cache as libraries write them: New starts a
// janitor goroutine that drops expired entries every interval, until Stop.
type TTLCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]time.Time
	stop    chan struct{}
	once    sync.Once
}

// NewTTLCache starts the cache's janitor.
func NewTTLCache(ttl, interval time.Duration) *TTLCache {
	c := &TTLCache{ttl: ttl, entries: map[string]time.Time{}, stop: make(chan struct{})}
	go c.janitor(interval)
	return c
}

// Seen records key and reports whether it was seen within the TTL.
func (c *TTLCache) Seen(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.entries[key]
	c.entries[key] = time.Now()
	return ok && time.Since(at) < c.ttl
}

// Stop ends the janitor.
func (c *TTLCache) Stop() { c.once.Do(func() { close(c.stop) }) }

func (c *TTLCache) janitor(interval time.Duration) {
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-tk.C:
			c.mu.Lock()
			for k, at := range c.entries {
				if now.Sub(at) >= c.ttl {
					delete(c.entries, k)
				}
			}
			c.mu.Unlock()
		}
	}
}
