package cluster

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"placelab/analysis"
	"placelab/datasets/k8s"
	store "placelab/sql"
)

// UntoleratedTaints names, for a Kubernetes pod (vm_id vm of load) and the
// nodes its tolerations keep it off, the taint of each node it does not
// tolerate, read from the objects ingest kept (k8s_object) and judged as
// ingest judged them (k8s.UntoleratedTaint): "dedicated=gpu:NoSchedule on 3
// nodes, node.kubernetes.io/unschedulable:NoSchedule on 1". "" when the
// load kept no objects.
func UntoleratedTaints(ctx context.Context, db *store.DB, load, vm int64, nodes map[string]bool) (string, error) {
	var pod *corev1.Pod
	byNode := map[string]*corev1.Node{}
	err := analysis.Each(ctx, db.SQL(), "k8s_objects", []any{load}, func(r *sql.Rows) error {
		var kind, name, obj string
		var id sql.NullInt64
		var machine sql.NullInt32
		var owner, node sql.NullString
		if err := r.Scan(&kind, &name, &id, &machine, &obj, &owner, &node); err != nil {
			return err
		}
		switch {
		case kind == "Node" && nodes[name]:
			var n corev1.Node
			if err := json.Unmarshal([]byte(obj), &n); err != nil {
				return fmt.Errorf("node %s: %w", name, err)
			}
			byNode[name] = &n
		case kind == "Pod" && id.Valid && id.Int64 == vm:
			var p corev1.Pod
			if err := json.Unmarshal([]byte(obj), &p); err != nil {
				return fmt.Errorf("pod %s: %w", name, err)
			}
			pod = &p
		}
		return nil
	})
	if err != nil || pod == nil {
		return "", err
	}
	count := map[string]int{}
	for _, n := range byNode {
		if t, bad := k8s.UntoleratedTaint(n, pod.Spec.Tolerations); bad {
			count[t.ToString()]++
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return count[keys[i]] > count[keys[j]] || count[keys[i]] == count[keys[j]] && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		unit := "nodes"
		if count[k] == 1 {
			unit = "node"
		}
		parts = append(parts, fmt.Sprintf("%s on %d %s", k, count[k], unit))
	}
	if len(parts) == 0 {
		return "", nil
	}
	return "untolerated taint " + strings.Join(parts, ", "), nil
}
