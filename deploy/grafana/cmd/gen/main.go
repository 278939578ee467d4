// Command gen writes informtop's Grafana dashboard to informtop.json (or
// the file -o names). `make dashboard` runs it; the package's test fails
// until the checked-in file matches.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/informtop/informtop/deploy/grafana"
)

func main() {
	out := flag.String("o", "informtop.json", "file to write the dashboard JSON to")
	flag.Parse()
	b, err := grafana.JSON()
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}
