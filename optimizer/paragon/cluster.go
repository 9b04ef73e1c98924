package paragon

import "fmt"

// emptyTolerance is the tolerated score (and headroom) of a server with no
// applications: it tolerates the strongest microbenchmark, 100% (§3.2's
// normalization: t = 100% and c = 0 is the largest ‖t − c‖₁).
const emptyTolerance = 1.0

// Resident is an application on a server as the scheduler knows it: its
// cores and its classified sensitivity scores per SoI.
type Resident struct {
	ID        int
	Cores     int
	Tolerated []float64
	Caused    []float64
}

// ServerSpec describes a server: its configuration (an index into the
// columns of the performance matrix) and its cores.
type ServerSpec struct {
	Config int
	Cores  int
}

// Server is the per-server state of §3.1–3.2: the applications on it and
// their cumulative sensitivities per source of interference.
type Server struct {
	ID     int
	Config int
	Cores  int
	// UsedCores is the sum of the residents' cores.
	UsedCores int
	Residents []Resident
	// Caused is the server's caused sensitivity per SoI, the sum over its
	// residents (§3.2).
	Caused []float64
	// Tolerated is the server's tolerated sensitivity per SoI, the minimum
	// over its residents (§3.2); emptyTolerance when empty.
	Tolerated []float64
	// Headroom is how much more interference the residents tolerate per
	// SoI: min over residents b of (t_b − Σ_{x≠b} c_x). §3.2's Tolerated
	// ignores the pressure residents already put on each other; with one
	// resident the two agree. emptyTolerance when empty.
	Headroom []float64
}

// FreeCores returns the cores not taken by residents (negative when
// oversubscribed).
func (s *Server) FreeCores() int { return s.Cores - s.UsedCores }

// refresh recomputes Caused, Tolerated and Headroom from the residents:
// O(residents × SoIs).
func (s *Server) refresh() {
	for k := range s.Caused {
		s.Caused[k] = 0
		s.Tolerated[k] = emptyTolerance
		s.Headroom[k] = emptyTolerance
	}
	s.UsedCores = 0
	for _, r := range s.Residents {
		s.UsedCores += r.Cores
		for k, c := range r.Caused {
			s.Caused[k] += c
		}
	}
	for _, r := range s.Residents {
		for k, t := range r.Tolerated {
			s.Tolerated[k] = min(s.Tolerated[k], t)
			s.Headroom[k] = min(s.Headroom[k], t-(s.Caused[k]-r.Caused[k]))
		}
	}
}

// Cluster is the scheduler's view of all servers.
type Cluster struct {
	Servers []Server
	sois    int
	where   map[int]int // application ID → server
}

// NewCluster returns a cluster of empty servers with sois sources of
// interference. It panics on a negative core count or SoI count.
func NewCluster(specs []ServerSpec, sois int) *Cluster {
	if sois < 0 {
		panic(fmt.Sprintf("paragon: NewCluster: %d SoIs", sois))
	}
	c := &Cluster{Servers: make([]Server, len(specs)), sois: sois, where: make(map[int]int)}
	for i, sp := range specs {
		if sp.Cores < 0 {
			panic(fmt.Sprintf("paragon: NewCluster: server %d has %d cores", i, sp.Cores))
		}
		s := Server{ID: i, Config: sp.Config, Cores: sp.Cores,
			Caused: make([]float64, sois), Tolerated: make([]float64, sois), Headroom: make([]float64, sois)}
		s.refresh()
		c.Servers[i] = s
	}
	return c
}

// SoIs returns the number of sources of interference.
func (c *Cluster) SoIs() int { return c.sois }

// Add places r on server id. It panics if the ID is already placed, the
// server does not exist or r's vectors have the wrong length.
func (c *Cluster) Add(id int, r Resident) {
	if _, ok := c.where[r.ID]; ok {
		panic(fmt.Sprintf("paragon: application %d placed twice", r.ID))
	}
	if len(r.Tolerated) != c.sois || len(r.Caused) != c.sois {
		panic(fmt.Sprintf("paragon: application %d has %d/%d scores, want %d", r.ID, len(r.Tolerated), len(r.Caused), c.sois))
	}
	s := &c.Servers[id]
	s.Residents = append(s.Residents, r)
	s.refresh()
	c.where[r.ID] = id
}

// Remove takes application id off its server and returns the server, or
// false if it is not placed.
func (c *Cluster) Remove(id int) (server int, ok bool) {
	server, ok = c.where[id]
	if !ok {
		return 0, false
	}
	delete(c.where, id)
	s := &c.Servers[server]
	for i, r := range s.Residents {
		if r.ID == id {
			s.Residents = append(s.Residents[:i], s.Residents[i+1:]...)
			break
		}
	}
	s.refresh()
	return server, true
}
