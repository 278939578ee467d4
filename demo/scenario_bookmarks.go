package demo

var bookmarksScenario = &scenario{name: "bookmarks", summary: "x", objects: 300, rate: defaultRate, build: func(cfg resolved) plan { return podsOnly(cfg, standardListeners()) }}
