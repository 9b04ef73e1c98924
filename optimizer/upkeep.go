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
