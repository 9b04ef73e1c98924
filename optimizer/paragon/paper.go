package paragon

// Constants taken from the Paragon paper (Delimitrou & Kozyrakis, ASPLOS'13);
// each cites the section it comes from.
const (
	// QoSFraction is the QoS bar of §2.3 and §5: an application meets its QoS
	// when it runs at ≥ 95% of its performance alone on its best server
	// configuration. The interference microbenchmarks of §2.3 are tuned up
	// until the application falls to this fraction, so a tolerated score is
	// the pressure at which performance is QoSFraction of alone.
	QoSFraction = 0.95

	// DefaultSoIs is the number of sources of interference of §2.3: memory
	// bandwidth and capacity, L1-i, L1-d, L2, LLC, iTLB, dTLB, network and
	// storage bandwidth.
	DefaultSoIs = 10

	// DefaultKnown is how many entries of a new application are profiled
	// online (§2.2: "any two server configurations"; §2.3: "two randomly
	// chosen microbenchmarks").
	DefaultKnown = 2

	// NearBestFraction is Table 1's "selected SC within 5% of best".
	NearBestFraction = 0.95
)

// SoINames are the ten sources of interference of §2.3, in column order of
// the tolerated and caused utility matrices built by Synthesize.
var SoINames = [DefaultSoIs]string{
	"mem_bw", "mem_cap", "l1i", "l1d", "l2", "llc", "itlb", "dtlb", "net_bw", "storage_bw",
}
