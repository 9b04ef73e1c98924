package optimizer

import (
	"sync"
	"testing"
)

// TestAgentsConcurrentInvariants: 8 agents as goroutines share a queue of
// random requests (gangs, isolation, anti-colocation, low priority) on a
// small zone and commit to one store; after every commit the authoritative
// state keeps capacity in every dimension, isolation and fault-domain
// bounds, and every request ends accepted or rejected exactly once.
func TestAgentsConcurrentInvariants(t *testing.T) {
	inv := buildZone(t, smallZone)
	reqs := randomRequests(inv, 3000, 17)
	store, err := NewCommitStore(inv, DefaultConfig(), DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	queue := make(chan int)
	ends := make([]int32, len(reqs)) // 1 accepted, 2 rejected
	var wg sync.WaitGroup
	var mu sync.Mutex
	var placed []VMID
	for a := 0; a < 8; a++ {
		cfg := DefaultConfig()
		cfg.Seed = uint64(a + 1)
		ag, err := NewAgent(a, inv, cfg, DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				r := reqs[i]
				for retry := 0; ; retry++ {
					ag.Sync(store)
					d := ag.Decide(r)
					if !d.OK {
						ends[i] = 2
						break
					}
					res := store.Commit(ag.ID, r, d.Placements, d.Evicted)
					ag.Resolve(store, d, res)
					if err := store.CheckInvariants(); err != nil {
						t.Error(err)
						for range queue { // drain, so the sender ends and the test fails instead of hanging
						}
						return
					}
					if res.OK {
						ends[i] = 1
						mu.Lock()
						for _, p := range d.Placements {
							placed = append(placed, p.VM)
						}
						mu.Unlock()
						break
					}
					if retry == DefaultMaxRetries {
						ends[i] = 2
						break
					}
				}
			}
		}()
	}
	for i := range reqs {
		queue <- i
		// Departures: release an old VM now and then, as a trace would.
		if i%3 == 0 {
			mu.Lock()
			if len(placed) > 40 {
				vm := placed[0]
				placed = placed[1:]
				mu.Unlock()
				store.Release(vm)
			} else {
				mu.Unlock()
			}
		}
	}
	close(queue)
	wg.Wait()
	for i, e := range ends {
		if e == 0 {
			t.Fatalf("request %d never resolved", i)
		}
	}
	if store.Commits == 0 {
		t.Fatal("nothing committed")
	}
	t.Logf("%d commits, %d conflicts", store.Commits, store.Conflicts)
}
