package analysis_test

import (
	"regexp"
	"testing"

	"placelab/optimizer"
	store "placelab/sql"
)

// TestEveryRuleDeclaresItsCheck: every validator of every rule set has an
// entry in the rule registry that names the problems placelab check's SQL
// reports when a stored placement breaks it — each a word of one of the
// check queries — or says why it has none, and its drain encoding; the
// registry names no rule that no rule set has. A new rule without a check
// fails here.
func TestEveryRuleDeclaresItsCheck(t *testing.T) {
	var sqlText string
	for _, q := range []string{"check_capacity", "check_constraints", "check_availability", "check_health"} {
		sqlText += store.MustQuery(q) + "\n"
	}
	sets := map[string]optimizer.Rules{} // every rule profile
	for _, p := range optimizer.Profiles() {
		cfg := optimizer.DefaultConfig()
		sets[p.Name] = p.New(&cfg)
	}
	used := map[string]bool{}
	for set, rules := range sets {
		for _, name := range rules.ValidatorNames() {
			used[name] = true
			spec, ok := optimizer.RuleSpecOf(name)
			switch {
			case !ok:
				t.Errorf("%s rules: validator %s has no registry entry", set, name)
				continue
			case len(spec.Check) == 0 && spec.Unchecked == "":
				t.Errorf("%s: declares no check and no reason for none", name)
			case spec.Drain == "":
				t.Errorf("%s: declares no drain encoding", name)
			}
			for _, p := range spec.Check {
				if !regexp.MustCompile(`\b` + regexp.QuoteMeta(p) + `\b`).MatchString(sqlText) {
					t.Errorf("%s: check problem %q is in no check query", name, p)
				}
			}
		}
	}
	for _, spec := range optimizer.Registry() {
		if !used[spec.Name] {
			t.Errorf("the registry names %s, which no rule set has", spec.Name)
		}
	}
}
