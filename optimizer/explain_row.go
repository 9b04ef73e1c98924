package optimizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ExplainRow is one VM's explanation as table explain stores it and
// placelab explain reads it back: a cluster-level row and a machine-level
// row, each with its candidates, two JSON documents (columns rejected and
// top, whose keys the JSON tags define) and the rule that emptied the
// candidate set at that level (column failed_rule). Machines and clusters
// are named as the database names them (machine_id and name), where an
// Explanation holds inventory indices: Explanation.Row makes one from the
// other.
type ExplainRow struct {
	VM      VMID
	Cluster ClusterLevel
	Machine MachineLevel
}

// ClusterLevel is the cluster-level row of an ExplainRow.
type ClusterLevel struct {
	// Candidates is the clusters considered.
	Candidates int
	// Rejected (column rejected) is the clusters each cluster validator
	// removed, in rule order: {"IsTypeSupported":0,…}.
	Rejected RuleCounts
	// Top (column top) is the clusters passed on to machine selection.
	Top ClusterTop
	// FailedRule is the rule that emptied the candidate set when no
	// cluster was left (empty: NULL).
	FailedRule string
}

// ClusterTop is the cluster-level top document.
type ClusterTop struct {
	// Selected names the clusters passed on to machine selection, best
	// first; empty when every valid cluster was (the baselines).
	Selected []string `json:"selected_clusters"`
}

// MachineLevel is the machine-level row of an ExplainRow.
type MachineLevel struct {
	// Candidates is the machines in the clusters passed on.
	Candidates int
	// Rejected (column rejected) is the counts by rule.
	Rejected MachineCounts
	// Top (column top) is how the machine was chosen.
	Top MachineTop
	// FailedRule is the rule that emptied the candidate set when some
	// machines were considered (empty: NULL); it stays set when eviction
	// then placed the VM.
	FailedRule string
}

// MachineCounts is the machine-level rejected document.
type MachineCounts struct {
	// Rejected is the machines each machine validator, then each request
	// validator, removed, in rule order.
	Rejected RuleCounts `json:"rejected"`
	// LeftAfter is the candidates left after each preference rule, in
	// rule order, the global rule last.
	LeftAfter RuleCounts `json:"left_after"`
	// Short counts, among the machines a resource validator removed, the
	// first short dimension (recorded when the VM found no machine).
	Short DimCounts `json:"short,omitempty"`
	// Evicted is the low-priority VMs evicted for this VM.
	Evicted int `json:"evicted"`
}

// MachineTop is the machine-level top document.
type MachineTop struct {
	// Chosen is the chosen machine's machine_id; nil (null) on failure.
	Chosen *int32 `json:"chosen"`
	// Pick says how the machine was picked (PickBest, PickAvoidance,
	// PickSafety, PickEviction or a baseline's policy name); nil (null)
	// when nothing was picked.
	Pick *string `json:"pick"`
	// RuleOrder names the preference rules in priority order, the global
	// rule last: the order of LeftAfter and of each top machine's scores.
	RuleOrder []string `json:"rule_order"`
	// Top is the best machines with their scores, best first.
	Top []TopMachine `json:"top"`
}

// TopMachine is one of the best machines of an ExplainRow.
type TopMachine struct {
	Machine int32       `json:"machine_id"`
	Name    string      `json:"name"`
	Scores  []RuleScore `json:"scores"`
}

// PickOf is the pick of a stored row, "" when none was recorded.
func (t *MachineTop) PickOf() string {
	if t.Pick == nil {
		return ""
	}
	return *t.Pick
}

var noStrings = []string{}

// Row is the explanation as stored: machines named by machineIDs (the
// database machine_id per inventory index) and inv's names, clusters by
// inv's names.
func (ex *Explanation) Row(inv *Inventory, machineIDs []int32) ExplainRow {
	r := ExplainRow{VM: ex.VM}
	r.Cluster = ClusterLevel{Candidates: ex.Clusters, Rejected: ex.ClusterRejected, Top: ClusterTop{Selected: noStrings}}
	if len(ex.Selected) > 0 {
		r.Cluster.Top.Selected = make([]string, len(ex.Selected))
		for i, c := range ex.Selected {
			r.Cluster.Top.Selected[i] = inv.Clusters[c].Name
		}
	}
	m := &r.Machine
	m.Candidates = ex.Machines
	m.Rejected = MachineCounts{Rejected: ex.Rejected, LeftAfter: ex.AfterPrefs, Short: ex.Short, Evicted: ex.Evicted}
	if ex.FailedRule != "" {
		if ex.Machines == 0 {
			r.Cluster.FailedRule = ex.FailedRule
		} else {
			m.FailedRule = ex.FailedRule
		}
	}
	m.Top.RuleOrder = ex.RuleOrder
	if m.Top.RuleOrder == nil {
		m.Top.RuleOrder = noStrings
	}
	// One allocation for the chosen machine, the pick and the top list.
	type extra struct {
		chosen int32
		pick   string
		top    [DefaultTopK]TopMachine
	}
	x := new(extra)
	if ex.Chosen >= 0 {
		x.chosen = machineIDs[ex.Chosen]
		m.Top.Chosen = &x.chosen
	}
	if ex.Pick != "" {
		x.pick = ex.Pick
		m.Top.Pick = &x.pick
	}
	if len(ex.Top) <= len(x.top) {
		m.Top.Top = x.top[:len(ex.Top):len(ex.Top)]
	} else {
		m.Top.Top = make([]TopMachine, len(ex.Top))
	}
	for i, t := range ex.Top {
		sc := t.Scores
		if sc == nil {
			sc = []RuleScore{}
		}
		m.Top.Top[i] = TopMachine{Machine: machineIDs[t.Machine], Name: inv.Machines[t.Machine].Name, Scores: sc}
	}
	return r
}

// RuleCounts is counts by rule, stored as a JSON object in rule order:
// {"IsMachineHealthy":0,"AreNodeResourcesValid":3,…}.
type RuleCounts []RuleCount

// Map is the counts by rule name.
func (rc RuleCounts) Map() map[string]int {
	m := make(map[string]int, len(rc))
	for _, r := range rc {
		m[r.Rule] = r.Count
	}
	return m
}

// Count is rule's count and whether rc has one.
func (rc RuleCounts) Count(rule string) (int, bool) {
	for _, r := range rc {
		if r.Rule == rule {
			return r.Count, true
		}
	}
	return 0, false
}

// MarshalJSON writes the object in rule order.
func (rc RuleCounts) MarshalJSON() ([]byte, error) { return rc.AppendJSON(nil), nil }

// AppendJSON appends the object to b.
func (rc RuleCounts) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, r := range rc {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, r.Rule)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.Count), 10)
	}
	return append(b, '}')
}

// UnmarshalJSON reads the object keeping its order.
func (rc *RuleCounts) UnmarshalJSON(b []byte) error {
	*rc = (*rc)[:0]
	return decodeCounts(b, func(k string, n int) error {
		*rc = append(*rc, RuleCount{k, n})
		return nil
	})
}

// DimCounts is counts by resource dimension, stored as a JSON object by
// dimension name: {"cores":3,"memory":1}.
type DimCounts []DimCount

// Map is the counts by dimension name.
func (dc DimCounts) Map() map[string]int {
	if dc == nil {
		return nil
	}
	m := make(map[string]int, len(dc))
	for _, d := range dc {
		m[d.Dim.String()] = d.Count
	}
	return m
}

// MarshalJSON writes the object in dimension order.
func (dc DimCounts) MarshalJSON() ([]byte, error) { return dc.AppendJSON(nil), nil }

// AppendJSON appends the object to b.
func (dc DimCounts) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, d := range dc {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, d.Dim.String())
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(d.Count), 10)
	}
	return append(b, '}')
}

// UnmarshalJSON reads the object keeping its order; a dimension this
// build does not know is an error.
func (dc *DimCounts) UnmarshalJSON(b []byte) error {
	*dc = (*dc)[:0]
	return decodeCounts(b, func(k string, n int) error {
		for d, name := range dimNames {
			if name == k {
				*dc = append(*dc, DimCount{Dim(d), n})
				return nil
			}
		}
		return fmt.Errorf("optimizer: no resource dimension %q", k)
	})
}

// decodeCounts reads a JSON object of integers in order (null: none).
func decodeCounts(b []byte, add func(string, int) error) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return fmt.Errorf("optimizer: counts: want an object, have %v", t)
	}
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return err
		}
		var n int
		if err := d.Decode(&n); err != nil {
			return err
		}
		if err := add(kt.(string), n); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

// UnmarshalJSON reads {"rule":…,"score":…} or a bare number (a record
// written before rule names were stored: the rule name is then empty).
func (r *RuleScore) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] != '{' {
		return json.Unmarshal(b, &r.Score)
	}
	type plain RuleScore
	return json.Unmarshal(b, (*plain)(r))
}

// The hand-written encoders below write what encoding/json writes for the
// same values (TestExplainRowJSON): they run once per VM of a replay.

// AppendJSON appends the cluster-level top document to b.
func (t *ClusterTop) AppendJSON(b []byte) []byte {
	b = append(b, `{"selected_clusters":`...)
	b = appendJSONStrings(b, t.Selected)
	return append(b, '}')
}

// AppendJSON appends the machine-level rejected document to b.
func (c *MachineCounts) AppendJSON(b []byte) []byte {
	b = append(b, `{"rejected":`...)
	b = c.Rejected.AppendJSON(b)
	b = append(b, `,"left_after":`...)
	b = c.LeftAfter.AppendJSON(b)
	if len(c.Short) > 0 {
		b = append(b, `,"short":`...)
		b = c.Short.AppendJSON(b)
	}
	b = append(b, `,"evicted":`...)
	b = strconv.AppendInt(b, int64(c.Evicted), 10)
	return append(b, '}')
}

// AppendJSON appends the machine-level top document to b.
func (t *MachineTop) AppendJSON(b []byte) []byte {
	b = append(b, `{"chosen":`...)
	if t.Chosen != nil {
		b = strconv.AppendInt(b, int64(*t.Chosen), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"pick":`...)
	if t.Pick != nil {
		b = appendJSONString(b, *t.Pick)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"rule_order":`...)
	b = appendJSONStrings(b, t.RuleOrder)
	b = append(b, `,"top":`...)
	if t.Top == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range t.Top {
			if i > 0 {
				b = append(b, ',')
			}
			b = t.Top[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// AppendJSON appends the top machine to b.
func (m *TopMachine) AppendJSON(b []byte) []byte {
	b = append(b, `{"machine_id":`...)
	b = strconv.AppendInt(b, int64(m.Machine), 10)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, m.Name)
	b = append(b, `,"scores":`...)
	if m.Scores == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range m.Scores {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"rule":`...)
			b = appendJSONString(b, s.Rule)
			b = append(b, `,"score":`...)
			b = strconv.AppendInt(b, s.Score, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONString appends s as encoding/json quotes it: plain printable
// ASCII as is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
