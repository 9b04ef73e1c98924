package k8sgen

import corev1 "k8s.io/api/core/v1"

// unschedulableTaint is the taint a cordoned node carries; the
// NodeUnschedulable filter asks whether the pod tolerates it.
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// untolerated returns the first NoSchedule or NoExecute taint none of the
// tolerations tolerates, or nil (TaintToleration filter; PreferNoSchedule
// only scores).
func untolerated(taints []corev1.Taint, tols []corev1.Toleration) *corev1.Taint {
	for i := range taints {
		t := &taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerates(tols, t) {
			return t
		}
	}
	return nil
}

// tolerates reports whether a toleration matches the taint: same effect (or
// the toleration names none), same key (or operator Exists with no key), and
// operator Exists or an equal value.
func tolerates(tols []corev1.Toleration, t *corev1.Taint) bool {
	for _, tol := range tols {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		if tol.Key != "" && tol.Key != t.Key {
			continue
		}
		switch tol.Operator {
		case corev1.TolerationOpExists:
			return true
		case corev1.TolerationOpEqual, "":
			if tol.Key != "" && tol.Value == t.Value {
				return true
			}
		}
	}
	return false
}
