package drain

// Reason codes of Explain, in the order a node is tested: each other node
// is counted under the first that excludes it.
const (
	ReasonAffinity      = "affinity"        // Pod.AffinityOK false; Detail: AffinityDesc
	ReasonTaint         = "taint"           // Pod.TolerationOK false; Detail: TolerationDesc
	ReasonUnschedulable = "unschedulable"   // Node.Schedulable false
	ReasonAntiAffinity  = "anti-affinity"   // MaxPerNode reached
	ReasonSpread        = "topology spread" // MaxSkew would be exceeded
	// ReasonShortPrefix + DimNames[k]: the pod does not fit in dimension k
	// (the first dimension, in DimNames order, that falls short).
	ReasonShortPrefix = "short of "
)
