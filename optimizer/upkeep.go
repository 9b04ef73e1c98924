package optimizer

// Optional interfaces of an engine, which a simulation loop reaches by an
// interface assertion rather than by naming the engine's type: an engine
// (or a test's fake) that implements them gets its idle-time upkeep run and
// its statistics read; one that does not (the baselines) is driven alike
// without them.

// Refresher is an engine with idle-time upkeep: Protean's background
// refresh of the cells behind the journal (§5.2).
type Refresher interface {
	// Refresh brings up to maxEvals cell evaluations up to date and
	// returns how many it did.
	Refresh(maxEvals int) int
	// IdleUpkeep is the time (ns, cumulative) decisions spent applying
	// changes on the background refresh's account.
	IdleUpkeep() int64
}

// StatsReporter is an engine that counts its own work: cache hits, what
// each rule removed, Protean Table 5's post-BestFit share and the cache's
// upkeep in cell updates.
type StatsReporter interface {
	CacheStats() map[string]CacheStats
	RuleStats() []RuleStats
	PostBestFit() PostBestFit
	BackgroundUpdates() int64
	CellUpdates() (background, decision int64)
	// Config is the engine's configuration (whether its cache is on).
	Config() Config
	// State is the engine's view (its journal counts machine changes).
	State() *State
}

var (
	_ Refresher     = (*Protean)(nil)
	_ StatsReporter = (*Protean)(nil)
)

// UpdateOutcomes counts cell updates (Protean.CellUpdates) by what the
// changed machine's re-evaluation found in that cell: still rejected by
// the same first validator (StillRejected) or by another (RejectedOther),
// still valid with the same key (Unchanged, only the rack's global score
// may move) or a new one (Moved: the entry shifts within its rack), valid
// no more (BecameInvalid: the entry leaves) or valid again (BecameValid:
// it enters). The rejected outcomes are the upkeep that only confirms a
// shape still does not fit; they are deterministic for a seed.
type UpdateOutcomes struct {
	StillRejected int64 `json:"still_rejected"`
	RejectedOther int64 `json:"rejected_other_validator"`
	Unchanged     int64 `json:"unchanged"`
	Moved         int64 `json:"moved"`
	BecameInvalid int64 `json:"became_invalid"`
	BecameValid   int64 `json:"became_valid"`
}

// Sub is o less b, outcome by outcome.
func (o UpdateOutcomes) Sub(b UpdateOutcomes) UpdateOutcomes {
	return UpdateOutcomes{o.StillRejected - b.StillRejected, o.RejectedOther - b.RejectedOther, o.Unchanged - b.Unchanged,
		o.Moved - b.Moved, o.BecameInvalid - b.BecameInvalid, o.BecameValid - b.BecameValid}
}

// Total is the updates counted.
func (o UpdateOutcomes) Total() int64 {
	return o.StillRejected + o.RejectedOther + o.Unchanged + o.Moved + o.BecameInvalid + o.BecameValid
}
