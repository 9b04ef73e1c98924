package optimizer

// RulePreferEmptierClusters names PreferEmptierClusters.
const RulePreferEmptierClusters = "PreferEmptierClusters"

// PreferEmptierClusters is the cluster preference PreferEmptierClusters(x, v)
// (§3.2): the more empty cores cluster x has, the better, to balance
// available capacity across clusters. Score = -(free cores of x), so lower
// is better; clusters compare exactly (cores are integral in practice).
type PreferEmptierClusters struct{}

var _ ClusterPreference = PreferEmptierClusters{}

func (PreferEmptierClusters) Name() string { return RulePreferEmptierClusters }

func (PreferEmptierClusters) ScoreCluster(env *Env, _ Traits, c int32) int64 {
	return emptierScore(env, c)
}

// emptierScore is PreferEmptierClusters' score of cluster c.
func emptierScore(env *Env, c int32) int64 {
	free := env.Inv.Clusters[c].Cores - env.State.ClusterUsedCores[c]
	return -int64(free*1000 + 0.5)
}
