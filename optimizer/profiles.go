package optimizer

import (
	"fmt"
	"slices"
)

// Profile is a named rule set: the rule sets a run can choose (DefaultRules
// and its variants) as data, each with what it is for and how it is built.
// Which policies can honour a profile is not declared beside it but
// derived from its rules (HonouredBy): a rule that only Protean honours
// says so itself (RestrictedRule).
type Profile struct {
	Name        string
	Description string
	// New builds the rule set; cfg supplies the settings a rule is built
	// from (the oversubscription rule's OversubConfig).
	New func(cfg *Config) Rules
}

// HonouredBy is which policies can run the profile: the intersection of
// its rules' HonouredBy.
func (p *Profile) HonouredBy() Honour {
	cfg := DefaultConfig()
	r := p.New(&cfg)
	return r.HonouredBy()
}

// The rule profiles' names.
const (
	ProfileDefault  = "default"
	ProfileOversub  = "oversub"
	ProfileLifetime = "lifetime"
	ProfileLAVA     = "lava"
	ProfileNILAS    = "nilas"
)

// profiles is the registry of rule sets.
var profiles = []Profile{
	{Name: ProfileDefault, Description: "Protean's rule set (§3.2–3.3 and the slides): DefaultRules",
		New: func(*Config) Rules { return DefaultRules() }},
	{Name: ProfileOversub, Description: "Resource Central's CPU oversubscription: CPUOversubscription for the fit rule, non-oversubscribed machines preferred (OversubRules of Config.Oversub, RC's defaults without one)",
		New: func(c *Config) Rules { return OversubRules(oversubOf(c)) }},
	{Name: ProfileLifetime, Description: "lifetime alignment: PreferAlignedLifetime after PreferNonEmptyMachines (LifetimeRules)",
		New: func(*Config) Rules { return LifetimeRules() }},
	{Name: ProfileLAVA, Description: "LAVA's placement (Ling et al., MLSys 2025): PreferLifetimeLAVA after PreferNonEmptyMachines (LifeClassRules)",
		New: func(*Config) Rules { return LifeClassRules(PreferLifetimeLAVA{}) }},
	{Name: ProfileNILAS, Description: "NILAS, non-invasive lifetime-aware scoring (LAVA §4): PreferLifetimeNILAS after BestFit (LifeClassRules)",
		New: func(*Config) Rules { return LifeClassRules(PreferLifetimeNILAS{}) }},
}

// Profiles lists the rule profiles.
func Profiles() []Profile { return slices.Clone(profiles) }

// ProfileOf is the profile named name.
func ProfileOf(name string) (Profile, bool) {
	i := slices.IndexFunc(profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return profiles[i], true
}

// profile is the built-in profile named name.
func profile(name string) *Profile {
	i := slices.IndexFunc(profiles, func(p Profile) bool { return p.Name == name })
	return &profiles[i]
}

// RulesFor is the rule set a configuration runs with: the oversub profile
// when cfg.Oversub is set, else the default one. Engines of one comparison
// built from one Config through it apply the same validators.
func RulesFor(cfg *Config) Rules {
	if cfg.Oversub != nil {
		return profile(ProfileOversub).New(cfg)
	}
	return profile(ProfileDefault).New(cfg)
}

// RestrictedRule is implemented by a rule that only some policies honour:
// HonouredBy says which. A rule without it is honoured by every policy
// (a baseline applies every validator, and its policy's order stands for
// DefaultRules' preferences); one with it, such as a lifetime preference
// (an order of machines no baseline's policy has), is refused by the
// policies it leaves out.
type RestrictedRule interface {
	HonouredBy() Honour
}

// honouredBy is r's RestrictedRule declaration, or every policy.
func honouredBy(r any) Honour {
	if x, ok := r.(RestrictedRule); ok {
		return x.HonouredBy()
	}
	return HonourEvery
}

// named is any rule: every level's rules have a name.
type named interface{ Name() string }

// all lists every rule of the set with whether it orders machines (a
// machine preference or the global rule), in Names' order.
func (r *Rules) all() (rules []named, orders []bool) {
	add := func(x named, o bool) { rules, orders = append(rules, x), append(orders, o) }
	for _, x := range r.ClusterValidators {
		add(x, false)
	}
	for _, x := range r.ClusterPreferences {
		add(x, false)
	}
	for _, x := range r.Validators {
		add(x, false)
	}
	for _, x := range r.Request {
		add(x, false)
	}
	for _, x := range r.Preferences {
		add(x, true)
	}
	if r.Global != nil {
		add(r.Global, true)
	}
	return rules, orders
}

// HonouredBy is which policies honour every rule of the set.
func (r *Rules) HonouredBy() Honour {
	h := HonourEvery
	rules, _ := r.all()
	for _, x := range rules {
		h &= honouredBy(x)
	}
	return h
}

// refuseFor refuses, in one line naming the policy and the rule, a rule
// set with a rule policy cannot honour (RestrictedRule).
func (r *Rules) refuseFor(policy Policy) error {
	h := PolicyHonour(string(policy))
	rules, orders := r.all()
	for i, x := range rules {
		if honouredBy(x)&h != 0 {
			continue
		}
		why := "it is a rule of Protean's engine only"
		if orders[i] {
			why = "a baseline orders machines by its policy, not by preference rules"
		}
		return fmt.Errorf("%w: policy %s cannot honour %s (%s)", ErrBadRequest, policy, x.Name(), why)
	}
	return nil
}

// withPreference is r with rule among the machine preferences right after
// the one named after (appended last when r has none of that name).
func withPreference(r Rules, rule MachinePreferenceRule, after string) Rules {
	prefs := make([]MachinePreferenceRule, 0, len(r.Preferences)+1)
	placed := false
	for _, p := range r.Preferences {
		prefs = append(prefs, p)
		if !placed && p.Name() == after {
			prefs = append(prefs, rule)
			placed = true
		}
	}
	if !placed {
		prefs = append(prefs, rule)
	}
	r.Preferences = prefs
	return r
}
