package k8s

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// constrainPods gives every pod its node sets, MaxPerNode, MaxSkew and
// Unhonoured phrases, in pod order (so NodeSets are in order of first use),
// and warns once per tenant and unhonoured phrase.
func (l *loader) constrainPods() error {
	l.byNamespace = map[string][]int{}
	for i := range l.pods {
		l.byNamespace[l.pods[i].Namespace] = append(l.byNamespace[l.pods[i].Namespace], i)
	}
	l.othersCache = map[string]bool{}
	for i := range l.pods {
		pod, e := &l.pods[i], &l.entries[i]
		var err error
		if pod.Affinity, err = l.affinitySet(pod, e); err != nil {
			return err
		}
		if pod.Tolerated, err = l.toleratedSet(pod, e); err != nil {
			return err
		}
		if err := l.podTerms(pod, e); err != nil {
			return err
		}
		for _, phrase := range pod.Unhonoured {
			class, _, _ := strings.Cut(phrase, " (")
			l.warn.count(pod.Tenant+"\x00"+class, WarnNotHonoured, pod.Source, tenantObject(pod),
				"not honoured on ", " pod(s) of the tenant, e.g. "+pod.Name+": "+phrase)
		}
	}
	return nil
}

// tenantObject names a pod's tenant as a Warning.Object: "Deployment ns/name".
func tenantObject(p *Pod) string {
	if p.OwnerKind == "" {
		return ownerKindBarePod + " " + objectName(p.Namespace, p.Name)
	}
	return p.OwnerKind + " " + objectName(p.Namespace, p.OwnerName)
}

// Topology keys honoured: one pod per hostname, spread over zones.
var zoneKeys = []string{labelZone, labelZoneBeta}

// podTerms reads the pod (anti-)affinity, topology spread, volume and host
// port constraints.
func (l *loader) podTerms(pod *Pod, e *podEntry) error {
	spec := &e.pod.Spec
	path := e.specPath
	add := func(phrase string) {
		if !slices.Contains(pod.Unhonoured, phrase) {
			pod.Unhonoured = append(pod.Unhonoured, phrase)
		}
	}
	if a := spec.Affinity; a != nil {
		if a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
			add(UnhonouredPreferredNodeAffinity)
		}
		if a.PodAffinity != nil {
			if len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
				add(UnhonouredRequiredPodAffinity)
			}
			if len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
				add(UnhonouredPreferredPodAffinity)
			}
		}
		if aa := a.PodAntiAffinity; aa != nil {
			for i, term := range aa.RequiredDuringSchedulingIgnoredDuringExecution {
				termPath := fmt.Sprintf("%s.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d]", path, i)
				phrase, err := l.antiAffinityTerm(pod, e, &term, termPath)
				if err != nil {
					return err
				}
				if phrase != "" {
					add(phrase)
				}
			}
			if len(aa.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
				add(UnhonouredPreferredPodAntiAffinity)
			}
		}
	}
	for i, c := range spec.TopologySpreadConstraints {
		phrase, err := l.spreadConstraint(pod, e, &c, fmt.Sprintf("%s.topologySpreadConstraints[%d]", path, i))
		if err != nil {
			return err
		}
		if phrase != "" {
			add(phrase)
		}
	}
	for _, v := range spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			// A bound pod's claims hold it to its zone (volumeZone, part of
			// its affinity set); an unbound pod's volume zone is unknown.
			if _, held := l.volumeZone(pod, e); !held && pod.Node < 0 {
				add(UnhonouredVolume + "(persistentVolumeClaim " + v.PersistentVolumeClaim.ClaimName + " of a pod not yet bound: its volume's zone is unknown)")
			}
		case v.Ephemeral != nil:
			add(UnhonouredVolume + "(ephemeral volume " + v.Name + ")")
		}
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, p := range c.Ports {
				if port := hostPort(spec, p); port != "" {
					add(UnhonouredHostPort + port)
				}
			}
		}
	}
	return nil
}

// antiAffinityTerm applies one required pod anti-affinity term: a term on
// kubernetes.io/hostname that selects the pod itself sets MaxPerNode = 1;
// every other term is returned as an unhonoured phrase. A term that also
// selects pods of other tenants in the input is honoured within the tenant
// only, and says so.
func (l *loader) antiAffinityTerm(pod *Pod, e *podEntry, term *corev1.PodAffinityTerm, path string) (string, error) {
	sel, err := termSelector(term.LabelSelector, term.MatchLabelKeys, term.MismatchLabelKeys, e.pod.Labels)
	if err != nil {
		return "", e.obj.fail(path+".labelSelector", fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	scope, err := newNamespaceScope(pod.Namespace, term.Namespaces, term.NamespaceSelector)
	if err != nil {
		return "", e.obj.fail(path+".namespaceSelector", fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	if term.TopologyKey != labelHostname {
		return UnhonouredAntiAffinityKey + term.TopologyKey, nil
	}
	if !scope.includes(pod.Namespace) || !sel.Matches(labels.Set(e.pod.Labels)) {
		return UnhonouredAntiAffinityNotSelf, nil
	}
	pod.MaxPerNode = 1
	if l.selectsOthers(pod.Tenant, scope, sel) {
		return UnhonouredAntiAffinityOthers, nil
	}
	return "", nil
}

// spreadConstraint applies one topology spread constraint: DoNotSchedule on
// the zone key with a selector matching the pod itself sets MaxSkew (the
// smallest such); every other constraint is returned as an unhonoured
// phrase. Spread counts pods of the pod's own namespace.
func (l *loader) spreadConstraint(pod *Pod, e *podEntry, c *corev1.TopologySpreadConstraint, path string) (string, error) {
	if c.WhenUnsatisfiable != corev1.DoNotSchedule {
		return UnhonouredSpreadScheduleAnyway, nil
	}
	if !slices.Contains(zoneKeys, c.TopologyKey) {
		return UnhonouredSpreadKey + c.TopologyKey, nil
	}
	sel, err := termSelector(c.LabelSelector, c.MatchLabelKeys, nil, e.pod.Labels)
	if err != nil {
		return "", e.obj.fail(path+".labelSelector", fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	if !sel.Matches(labels.Set(e.pod.Labels)) {
		return UnhonouredSpreadNotSelf, nil
	}
	if skew := int(c.MaxSkew); pod.MaxSkew == 0 || skew < pod.MaxSkew {
		pod.MaxSkew = skew
	}
	if l.selectsOthers(pod.Tenant, namespaceScope{names: []string{pod.Namespace}}, sel) {
		return UnhonouredSpreadOthers, nil
	}
	return "", nil
}

// termSelector is a term's label selector (LabelSelectorAsSelector; nil
// selects nothing) with matchLabelKeys and mismatchLabelKeys merged in as
// the API server does: key in (the pod's value), key notin (the pod's
// value), keys the pod lacks ignored.
func termSelector(ls *metav1.LabelSelector, matchKeys, mismatchKeys []string, podLabels map[string]string) (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, err
	}
	for _, keys := range []struct {
		keys []string
		op   selection.Operator
	}{{matchKeys, selection.In}, {mismatchKeys, selection.NotIn}} {
		for _, k := range keys.keys {
			v, ok := podLabels[k]
			if !ok {
				continue
			}
			r, err := labels.NewRequirement(k, keys.op, []string{v})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	return sel, nil
}

// namespaceScope is the namespaces a pod affinity term applies to.
type namespaceScope struct {
	all   bool
	names []string
	sel   labels.Selector // matched against a namespace's kubernetes.io/metadata.name label
}

// newNamespaceScope: the listed namespaces and those namespaceSelector
// selects; the pod's own namespace when both are absent; every namespace
// for an empty selector ({}). Namespace objects are not read, so a
// selector is matched against the one label every namespace has,
// kubernetes.io/metadata.name.
func newNamespaceScope(own string, names []string, nsSel *metav1.LabelSelector) (namespaceScope, error) {
	if len(names) == 0 && nsSel == nil {
		return namespaceScope{names: []string{own}}, nil
	}
	s := namespaceScope{names: names}
	if nsSel != nil {
		sel, err := metav1.LabelSelectorAsSelector(nsSel)
		if err != nil {
			return s, err
		}
		s.all, s.sel = sel.Empty(), sel
	}
	return s, nil
}

func (s namespaceScope) includes(ns string) bool {
	return s.all || slices.Contains(s.names, ns) ||
		(s.sel != nil && s.sel.Matches(labels.Set{namespaceMetadataLabel: ns}))
}

// selectsOthers reports whether sel selects, in scope, a pod of the
// cluster outside tenant (cached per tenant, scope and selector).
func (l *loader) selectsOthers(tenant string, scope namespaceScope, sel labels.Selector) bool {
	scopeKey := "*"
	if !scope.all {
		scopeKey = strings.Join(scope.names, ",")
		if scope.sel != nil {
			scopeKey += "|" + scope.sel.String()
		}
	}
	key := tenant + "\x00" + scopeKey + "\x00" + sel.String()
	if v, ok := l.othersCache[key]; ok {
		return v
	}
	found := false
	for _, ns := range sortedKeys(l.byNamespace) {
		if !scope.includes(ns) {
			continue
		}
		for _, j := range l.byNamespace[ns] {
			if l.pods[j].Tenant != tenant && sel.Matches(labels.Set(l.entries[j].pod.Labels)) {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	l.othersCache[key] = found
	return found
}

// hostPort is a container port's host port as "8080" (TCP) or "53/UDP";
// "" when it has none. With hostNetwork the container port is the host
// port (the API server's defaulting, applied here to manifests too).
func hostPort(spec *corev1.PodSpec, p corev1.ContainerPort) string {
	port := p.HostPort
	if port == 0 && spec.HostNetwork {
		port = p.ContainerPort
	}
	if port == 0 {
		return ""
	}
	s := strconv.Itoa(int(port))
	if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
		s += "/" + string(p.Protocol)
	}
	return s
}
