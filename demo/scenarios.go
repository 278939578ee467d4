package demo

// ScenarioInfo names and describes one scenario, for `informtop scenarios`.
type ScenarioInfo struct {
	Name    string
	Summary string
}

// scenario is one entry of the catalogue: its defaults and how to build it.
type scenario struct {
	name    string
	summary string
	objects int     // default Config.Objects
	rate    float64 // default background changes per second
	build   func(cfg resolved) plan
	// pagedList: the scenario teaches LIST pages, so by default (ListAuto)
	// its server does not stream initial lists.
	pagedList bool
}

const defaultScenario = "steady"

// defaultRate is the background churn most scenarios use: enough to keep
// every view moving, slow enough for the slow listener to keep up.
const defaultRate = 20

// catalogue lists the scenarios in the order `informtop scenarios` shows.
func catalogue() []*scenario {
	return []*scenario{
		steadyScenario,
		burstScenario,
		stalledScenario,
		watchDropScenario,
		expiredScenario,
		resyncScenario,
		initialSyncScenario,
		fifoCompareScenario,
		mutatingHandlerScenario,
		slowWatcherScenario,
		watchCacheWindowScenario,
		bookmarksScenario,
	}
}

// Scenarios lists the demo scenarios, the default one first.
func Scenarios() []ScenarioInfo {
	all := catalogue()
	out := make([]ScenarioInfo, len(all))
	for i, sc := range all {
		out[i] = ScenarioInfo{Name: sc.name, Summary: sc.summary}
	}
	return out
}

func lookupScenario(name string) *scenario {
	for _, sc := range catalogue() {
		if sc.name == name {
			return sc
		}
	}
	return nil
}

func scenarioNames() []string {
	var names []string
	for _, sc := range catalogue() {
		names = append(names, sc.name)
	}
	return names
}
