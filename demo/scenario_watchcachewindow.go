package demo

var watchCacheWindowScenario = &scenario{name: "watch-cache-window", summary: "x", objects: 300, rate: defaultRate, build: func(cfg resolved) plan { return podsOnly(cfg, standardListeners()) }}
