package optimizer

import "container/list"

// pool is a constant-size LRU pool of cached objects with age-based
// eviction (§5.2.1), counting hits and misses.
type pool[K comparable, V any] struct {
	cap    int
	maxAge uint64
	items  map[K]*list.Element
	lru    *list.List // front = most recently used
	Stats  CacheStats
	// onRemove, when set, is called with each object the pool drops.
	onRemove func(V)
}

type poolItem[K comparable, V any] struct {
	key  K
	val  V
	used uint64 // clock of last use
}

// CacheStats counts one cache class's lookups.
type CacheStats struct {
	Hits, Misses, Evictions int64
}

// HitRate is hits / lookups (0 when unused).
func (s CacheStats) HitRate() float64 {
	if n := s.Hits + s.Misses; n > 0 {
		return float64(s.Hits) / float64(n)
	}
	return 0
}

func newPool[K comparable, V any](capacity int, maxAge uint64) *pool[K, V] {
	return &pool[K, V]{cap: capacity, maxAge: maxAge, items: map[K]*list.Element{}, lru: list.New()}
}

// get returns the object for key, creating it with mk on a miss. now is
// the caller's clock (requests served), used for age eviction.
func (p *pool[K, V]) get(key K, now uint64, mk func() V) (V, bool) {
	if e, ok := p.items[key]; ok {
		it := e.Value.(*poolItem[K, V])
		if p.maxAge == 0 || now-it.used <= p.maxAge {
			it.used = now
			p.lru.MoveToFront(e)
			p.Stats.Hits++
			return it.val, true
		}
		p.remove(e)
	}
	p.Stats.Misses++
	v := mk()
	p.items[key] = p.lru.PushFront(&poolItem[K, V]{key: key, val: v, used: now})
	for p.lru.Len() > p.cap {
		p.remove(p.lru.Back())
	}
	return v, false
}

// expire drops objects unused for longer than maxAge.
func (p *pool[K, V]) expire(now uint64) {
	for e := p.lru.Back(); e != nil && p.maxAge > 0; {
		it := e.Value.(*poolItem[K, V])
		if now-it.used <= p.maxAge {
			return
		}
		prev := e.Prev()
		p.remove(e)
		e = prev
	}
}

func (p *pool[K, V]) remove(e *list.Element) {
	it := e.Value.(*poolItem[K, V])
	delete(p.items, it.key)
	p.lru.Remove(e)
	p.Stats.Evictions++
	if p.onRemove != nil {
		p.onRemove(it.val)
	}
}

// each calls fn for every cached object, most recently used first.
func (p *pool[K, V]) each(fn func(V)) {
	for e := p.lru.Front(); e != nil; e = e.Next() {
		fn(e.Value.(*poolItem[K, V]).val)
	}
}

func (p *pool[K, V]) len() int { return p.lru.Len() }
