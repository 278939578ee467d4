package grafana

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Units, as Grafana names them.
const (
	unitSeconds = "s"
	unitCount   = "short"
	unitBytes   = "bytes"
	unitPerSec  = "ops"
)

// datasource is the Prometheus the datasource variable picks: panels name
// no instance's uid, so the JSON imports into any Grafana.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// query is a range query drawn as a series per legend.
func query(expr, legend string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().Datasource(datasource).Expr(expr).LegendFormat(legend).Range()
}

// instant is a table-format instant query: one row per series, labels as
// columns, the value in "Value #ref".
func instant(ref, expr string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().Datasource(datasource).Expr(expr).RefId(ref).
		Instant().Format(prometheus.PromQueryFormatTable)
}

func targets(qs ...*prometheus.DataqueryBuilder) []cog.Builder[variants.Dataquery] {
	out := make([]cog.Builder[variants.Dataquery], len(qs))
	for i, q := range qs {
		out[i] = q
	}
	return out
}

// step is a threshold: from value on, the colour.
type step struct {
	from  float64
	color string
}

// thresholds starts green and turns each step's colour from its value on.
func thresholds(steps ...step) *dashboard.ThresholdsConfigBuilder {
	s := []dashboard.Threshold{{Color: "green"}} // base: Value nil is -Infinity
	for _, st := range steps {
		s = append(s, dashboard.Threshold{Value: cog.ToPtr(st.from), Color: st.color})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(s)
}

// stallSteps mark a handler call the agent found stuck (frame known) and
// one the alert rule calls stalled.
var stallSteps = []step{{frameSeconds, "orange"}, {stallSeconds, "red"}}

// graph is a time series panel a third of the row wide, its legend a
// table of last and max values, largest max first.
func graph(title, description, unit string, qs ...*prometheus.DataqueryBuilder) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Title(title).Description(description).Unit(unit).Min(0).
		Datasource(datasource).Targets(targets(qs...)).
		Span(8).Height(8).
		Legend(common.NewVizLegendOptionsBuilder().
			ShowLegend(true).DisplayMode(common.LegendDisplayModeTable).Placement(common.LegendPlacementBottom).
			Calcs([]string{"lastNotNull", "max"}).SortBy("Max").SortDesc(true)).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderDescending))
}

// withThresholds draws the steps as dashed lines on a graph.
func withThresholds(p *timeseries.PanelBuilder, steps ...step) *timeseries.PanelBuilder {
	return p.Thresholds(thresholds(steps...)).
		ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeDashed))
}

// single is a stat panel of one number, coloured by the steps.
func single(title, description, unit, expr string, steps ...step) *stat.PanelBuilder {
	return stat.NewPanelBuilder().
		Title(title).Description(description).Unit(unit).
		Datasource(datasource).Targets(targets(query(expr, ""))).
		Span(4).Height(4).
		ColorMode(common.BigValueColorModeBackground).GraphMode(common.BigValueGraphModeArea).
		Orientation(common.VizOrientationAuto).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		Thresholds(thresholds(steps...))
}

// column describes one value column of a merged table: the instant
// query's ref, the header it is renamed to, its unit and colouring.
type column struct {
	ref, header, unit string
	steps             []step
	// mappings turns values into words (0/1 flags).
	mappings []dashboard.ValueMapping
	// ascending sorts by this column smallest first, when it is the
	// first: where a low value is the bad one (synced 0).
	ascending bool
}

// grid is a table panel joining instant queries on their shared labels,
// one row per series, sorted by the first column, worst first. hide
// names label columns not worth a column.
func grid(title, description string, exprs []string, cols []column, hide ...string) *table.PanelBuilder {
	qs := make([]*prometheus.DataqueryBuilder, len(cols))
	exclude := map[string]bool{"Time": true, "__name__": true}
	for _, h := range hide {
		exclude[h] = true
	}
	rename := map[string]string{}
	for i, c := range cols {
		qs[i] = instant(c.ref, exprs[i])
		rename["Value #"+c.ref] = c.header
	}
	if len(cols) == 1 {
		// Grafana numbers the value column only when a panel has
		// several queries.
		rename["Value"] = cols[0].header
	}
	p := table.NewPanelBuilder().
		Title(title).Description(description).
		Datasource(datasource).Targets(targets(qs...)).
		Span(24).Height(9).
		// merge joins the queries' rows on the labels they share, so a
		// listener's columns line up whatever extra labels one query has.
		WithTransformation(dashboard.DataTransformerConfig{Id: "merge", Options: map[string]any{}}).
		WithTransformation(dashboard.DataTransformerConfig{Id: "organize", Options: map[string]any{
			"excludeByName": exclude,
			"renameByName":  rename,
		}}).
		SortBy([]cog.Builder[common.TableSortByFieldState]{
			common.NewTableSortByFieldStateBuilder().DisplayName(cols[0].header).Desc(!cols[0].ascending),
		}).
		Filterable(true).
		// The SDK leaves the footer's reducer null, which its own strict
		// parser rejects; Grafana's default is sum.
		Footer(common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{"sum"}))
	for _, c := range cols {
		props := []dashboard.DynamicConfigValue{{Id: "unit", Value: c.unit}}
		if len(c.steps) > 0 {
			props = append(props,
				dashboard.DynamicConfigValue{Id: "thresholds", Value: mustBuild(thresholds(c.steps...))},
				dashboard.DynamicConfigValue{Id: "custom.cellOptions", Value: map[string]any{"type": string(common.TableCellDisplayModeColorBackground)}},
			)
		}
		if len(c.mappings) > 0 {
			// color-text, so the mapping's colour shows.
			props = append(props,
				dashboard.DynamicConfigValue{Id: "mappings", Value: c.mappings},
				dashboard.DynamicConfigValue{Id: "custom.cellOptions", Value: map[string]any{"type": string(common.TableCellDisplayModeColorText)}},
			)
		}
		p = p.OverrideByName(c.header, props)
	}
	return p
}

// flag maps a 0/1 gauge to words, the bad one red.
func flag(zero, one string, oneIsBad bool) []dashboard.ValueMapping {
	good, bad := "green", "red"
	zc, oc := bad, good
	if oneIsBad {
		zc, oc = good, bad
	}
	return []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{
		Type: dashboard.MappingTypeValueToText,
		Options: map[string]dashboard.ValueMappingResult{
			"0": {Text: cog.ToPtr(zero), Color: cog.ToPtr(zc), Index: cog.ToPtr[int32](0)},
			"1": {Text: cog.ToPtr(one), Color: cog.ToPtr(oc), Index: cog.ToPtr[int32](1)},
		},
	}}}
}

// mustBuild builds a fixed sub-object; its inputs are constants here, so
// an error is a bug in this package.
func mustBuild[T any](b cog.Builder[T]) T {
	v, err := b.Build()
	if err != nil {
		panic(err)
	}
	return v
}
