// Package k8s reads a Kubernetes cluster — nodes, pods and workload
// manifests — into plain Go values for placelab's store.
//
// Input is what kubectl prints (`kubectl get nodes -o json`, `kubectl get
// pods -A -o json`: a List, NodeList or PodList), single objects, YAML
// manifests of one or many documents, and folders of such files walked
// recursively (a support bundle's cluster-resources/nodes.json and
// cluster-resources/pods/*.json). The Kubernetes API's own types and
// helpers do the reading and the judging:
//
//	files ──walk──► documents ──NewYAMLOrJSONDecoder──► objects (List items split)
//	  │                                                    │ encoding/json into corev1/appsv1/batchv1 types
//	  ▼                                                    ▼
//	Report.Files                       Node ─ toResources(Quantity) ─► Cluster.Nodes
//	                                   Pod  ─ PodRequests, owner walk ─► Cluster.Pods (Running, Pending)
//	                                   Deployment/StatefulSet/ReplicaSet/Job/DaemonSet
//	                                        └─ no pods in the input ─► Pending replicas
//	                                   every pod ─ GetRequiredNodeAffinity(pod).Match ─► NodeSet "affinity"
//	                                             ─ FindMatchingUntoleratedTaint ─────► NodeSet "tolerated"
//	                                             ─ LabelSelectorAsSelector ─► MaxPerNode, MaxSkew, Unhonoured
//
// A malformed object or a quantity that does not parse stops Load with an
// *ObjectError naming the file, the item, the object and the field, e.g.
//
//	pods.json: item 17 (default/web-1): spec.containers[0].resources.requests.cpu: quantities must match the regular expression …
//
// Conditions Load tolerates become Report.Warnings with a code (Warn*).
// The same input gives the same Cluster: folders are walked in lexical
// order, objects kept in input order, and NodeSets numbered in order of
// first use.
package k8s
