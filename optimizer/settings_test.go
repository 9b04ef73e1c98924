package optimizer

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSettingsDeclareEveryConfigField: every Config field has a row in the
// settings table (an Oversub row per OversubConfig field), and no row
// names a field Config lacks; a row a baseline cannot honour says why.
func TestSettingsDeclareEveryConfigField(t *testing.T) {
	rows := map[string]bool{}
	for _, s := range Settings() {
		if rows[s.Field] {
			t.Errorf("two rows for %s", s.Field)
		}
		rows[s.Field] = true
		top, sub, _ := strings.Cut(s.Field, ".")
		f, ok := reflect.TypeOf(Config{}).FieldByName(top)
		if !ok {
			t.Errorf("row %s: Config has no field %s", s.Field, top)
			continue
		}
		if sub != "" {
			if _, ok := f.Type.Elem().FieldByName(sub); !ok {
				t.Errorf("row %s: %s has no field %s", s.Field, f.Type, sub)
			}
		}
		if !s.Honoured(HonourBaselines) && s.Why == "" {
			t.Errorf("row %s: a baseline cannot honour it, and it does not say why", s.Field)
		}
		if s.Flag != "" && s.Usage == "" {
			t.Errorf("row %s: flag --%s without usage", s.Field, s.Flag)
		}
	}
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.Type == reflect.TypeOf(&OversubConfig{}) {
			for j := range f.Type.Elem().NumField() {
				if n := f.Name + "." + f.Type.Elem().Field(j).Name; !rows[n] {
					t.Errorf("Config.%s has no row", n)
				}
			}
			continue
		}
		if !rows[f.Name] {
			t.Errorf("Config.%s has no row in the settings table", f.Name)
		}
	}
}

// TestIgnoredFieldsFromTheTable: the table gives the baselines the fields
// they always refused, in the same order, and Protean none.
func TestIgnoredFieldsFromTheTable(t *testing.T) {
	want := []string{"K", "Buckets", "RackBuckets", "Cache", "RulePool", "EvalPool", "MaxAge", "TopK", "Safety", "ArrivalRates"}
	for _, pol := range []Policy{FirstFit, BestFitP, WorstFit, Random} {
		if got, err := IgnoredFields(string(pol)); err != nil || !slices.Equal(got, want) {
			t.Errorf("IgnoredFields(%s) = %v, %v; want %v", pol, got, err, want)
		}
	}
	cfg := DefaultConfig()
	cfg.K = 16
	err := cfg.ValidateFor("bestfit")
	if err == nil || !strings.Contains(err.Error(), "policy bestfit cannot honour K (--k): it has no cluster selection") {
		t.Errorf("K for bestfit: %v", err)
	}
	if s, ok := SettingOf("k"); !ok || s.Help() != "clusters passed to machine selection (§3.2; Protean only)" {
		t.Errorf("--k help %q", s.Help())
	}
	if s, ok := SettingOf("seed"); !ok || s.Help() != "seed of the random tie-breaks" {
		t.Errorf("--seed help %q", s.Help())
	}
}

// TestProfiles: every profile builds a valid rule set; the lifetime ones
// are Protean's only (their rules say so), the others every policy's; the
// lifetime preferences sit where they always did.
func TestProfiles(t *testing.T) {
	for _, p := range Profiles() {
		cfg := DefaultConfig()
		r := p.New(&cfg)
		if err := r.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		want := HonourEvery
		switch p.Name {
		case ProfileLifetime, ProfileLAVA, ProfileNILAS:
			want = HonourProtean
		}
		if h := p.HonouredBy(); h != want {
			t.Errorf("%s honoured by %b, want %b", p.Name, h, want)
		}
		if q, ok := ProfileOf(p.Name); !ok || q.Description != p.Description {
			t.Errorf("ProfileOf(%s)", p.Name)
		}
	}
	for _, tc := range []struct {
		rules Rules
		want  []string
	}{
		{LifetimeRules(), []string{RulePreferNonEmptyMachines, RulePreferAlignedLifetime, RuleBestFit, RuleRackBalance}},
		{LifeClassRules(PreferLifetimeLAVA{}), []string{RulePreferNonEmptyMachines, RulePreferLifetimeLAVA, RuleBestFit, RuleRackBalance}},
		{LifeClassRules(PreferLifetimeNILAS{}), []string{RulePreferNonEmptyMachines, RuleBestFit, RulePreferLifetimeNILAS, RuleRackBalance}},
		{OversubRules(OversubConfig{MaxOversub: 1.25, MaxUtil: 1, Soft: true}), []string{RulePreferPredictedUtilBelowMax, RulePreferNonEmptyMachines, RulePreferNotOversubscribed, RuleBestFit, RuleRackBalance}},
	} {
		if got := tc.rules.PreferenceOrder(); !slices.Equal(got, tc.want) {
			t.Errorf("preference order %v, want %v", got, tc.want)
		}
	}
	if o := OversubRules(OversubConfig{MaxOversub: 1.25, MaxUtil: 1}); !slices.Contains(o.ValidatorNames(), RuleCPUOversubscription) ||
		slices.Contains(o.ValidatorNames(), RuleAreNodeResourcesValid) {
		t.Errorf("oversub validators %v", o.ValidatorNames())
	}
	cfg := DefaultConfig()
	def := DefaultRules()
	if r := RulesFor(&cfg); !slices.Equal(r.Names(), def.Names()) {
		t.Errorf("RulesFor(default) = %v", r.Names())
	}
}

// TestInlinedClusterRules: the built-in cluster rules declare the op
// cluster selection inlines them with; any other rule is called.
func TestInlinedClusterRules(t *testing.T) {
	r := DefaultRules()
	cr := initClusterRules(&r)
	want := []clusterOp{cvTypeSupported, cvHealthy, cvBelowLimit, cvCall, cvCall}
	if !slices.Equal(cr.op, want) || !cr.emptierOnly {
		t.Fatalf("ops %v (emptier only %v), want %v", cr.op, cr.emptierOnly, want)
	}
	if cr.accepts[0] != nil || cr.accepts[3] == nil || cr.accepts[4] == nil {
		t.Fatalf("AcceptsAllClusters %v", cr.accepts)
	}
}
