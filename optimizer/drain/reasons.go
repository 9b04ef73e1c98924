package drain

// Reason codes of Explain, in the order a node is tested: each other node
// is counted under the first that excludes it.
const (
	ReasonAffinity      = "affinity"        // Pod.AffinityOK false; Detail: AffinityDesc
	ReasonTaint         = "taint"           // Pod.TolerationOK false; Detail: TolerationDesc
	ReasonUpdateDomain  = "update domain"   // Pod.DomainOK false; Detail: DomainDesc
	ReasonUnschedulable = "unschedulable"   // Node.Schedulable false
	ReasonAntiAffinity  = "anti-affinity"   // MaxPerNode reached
	ReasonSpread        = "topology spread" // MaxSkew would be exceeded
	// ReasonFaultDomain: the node's rack holds a pod of the pod's group in
	// another fault domain; Detail: "rack r holds fault domain k of group
	// g", per rack.
	ReasonFaultDomain = "fault domain"
	// ReasonShortPrefix + DimNames[k]: the pod does not fit in dimension k
	// (the first dimension, in DimNames order, that falls short).
	ReasonShortPrefix = "short of "
)
