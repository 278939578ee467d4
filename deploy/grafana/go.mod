module github.com/informtop/informtop/deploy/grafana

go 1.26.8

require (
	github.com/VictoriaMetrics/metricsql v0.87.3
	github.com/grafana/grafana-foundation-sdk/go v0.0.22
)

require (
	github.com/VictoriaMetrics/metrics v1.35.3 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
	golang.org/x/sys v0.32.0 // indirect
)
