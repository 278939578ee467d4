package promtest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// The parts of Prometheus's configuration file that tests use.
type promConfig struct {
	Global        promGlobal     `yaml:"global"`
	RuleFiles     []string       `yaml:"rule_files,omitempty"`
	ScrapeConfigs []scrapeConfig `yaml:"scrape_configs,omitempty"`
}

type promGlobal struct {
	ScrapeInterval     string `yaml:"scrape_interval"`
	ScrapeTimeout      string `yaml:"scrape_timeout"`
	EvaluationInterval string `yaml:"evaluation_interval"`
}

type scrapeConfig struct {
	JobName       string         `yaml:"job_name"`
	MetricsPath   string         `yaml:"metrics_path"`
	StaticConfigs []staticConfig `yaml:"static_configs"`
}

type staticConfig struct {
	Targets []string          `yaml:"targets"`
	Labels  map[string]string `yaml:"labels,omitempty"`
}

// configYAML renders cfg as a prometheus.yml, one scrape configuration per
// job in the order the jobs first appear.
func configYAML(cfg Config) ([]byte, error) {
	scrape := orDefault(cfg.ScrapeInterval)
	pc := promConfig{Global: promGlobal{
		ScrapeInterval: promDuration(scrape),
		// Prometheus refuses a timeout longer than the interval, and its
		// default (10 s) is longer than a test's 1 s.
		ScrapeTimeout:      promDuration(scrape),
		EvaluationInterval: promDuration(orDefault(cfg.EvalInterval)),
	}}
	for _, f := range cfg.RuleFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, fmt.Errorf("promtest: rule file %s: %w", f, err)
		}
		pc.RuleFiles = append(pc.RuleFiles, abs)
	}
	var jobs []string
	byJob := map[string]*scrapeConfig{}
	for _, tg := range cfg.Targets {
		if tg.Job == "" || tg.Addr == "" {
			return nil, fmt.Errorf("promtest: target %+v needs a Job and an Addr (host:port)", tg)
		}
		path := tg.MetricsPath
		if path == "" {
			path = "/metrics"
		}
		sc := byJob[tg.Job]
		if sc == nil {
			sc = &scrapeConfig{JobName: tg.Job, MetricsPath: path}
			byJob[tg.Job] = sc
			jobs = append(jobs, tg.Job)
		}
		if sc.MetricsPath != path {
			return nil, fmt.Errorf("promtest: job %s has targets with metrics paths %s and %s: "+
				"Prometheus scrapes one path per job, so give them different jobs", tg.Job, sc.MetricsPath, path)
		}
		sc.StaticConfigs = append(sc.StaticConfigs, staticConfig{Targets: []string{tg.Addr}, Labels: tg.Labels})
	}
	for _, j := range jobs {
		pc.ScrapeConfigs = append(pc.ScrapeConfigs, *byJob[j])
	}
	return yaml.Marshal(pc)
}

// promDuration writes d in milliseconds: Prometheus reads "1500ms" but not
// Go's "1.5s".
func promDuration(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Second
	}
	return d
}

// jobsOf lists the jobs of cfg, for the log line of Start.
func jobsOf(cfg Config) []string {
	var jobs []string
	for _, tg := range cfg.Targets {
		if !slices.Contains(jobs, tg.Job) {
			jobs = append(jobs, tg.Job)
		}
	}
	return jobs
}
