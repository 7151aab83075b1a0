// Command gostudies is the Go case studies as one scenario program: each
// study's racy and safe variants, chosen with --scenario. goose's and
// golang-migrate's need --connections multi-producer and tern's --overlap
// pairs, and their safe variants are proved up to --max-depth 2; GORM's
// needs no flag, and its safe variant is proved with every order.
//
//	go run ./cmd/gostudies run --scenario gorm-first-or-create-racy  # exit 1
//	go run ./cmd/gostudies run --scenario gorm-first-or-create-fixed # exit 0, every order explored
package main

import (
	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"github.com/pginterleave/interleave/casestudies/go/gooseup"
	"github.com/pginterleave/interleave/casestudies/go/gormfirstorcreate"
	"github.com/pginterleave/interleave/casestudies/go/migrateversiontable"
	"github.com/pginterleave/interleave/casestudies/go/ternversiontable"
)

func main() {
	var scenarios []interleave.Scenario
	for _, st := range []*gostudies.Study{gooseup.Study, migrateversiontable.Study, gormfirstorcreate.Study, ternversiontable.Study} {
		for _, v := range st.Variants() {
			scenarios = append(scenarios, v.Scenario)
		}
	}
	interleave.Main(scenarios...)
}
