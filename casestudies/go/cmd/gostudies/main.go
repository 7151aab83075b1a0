// Command gostudies is the Go case studies as one scenario program: each
// study's racy and safe variants, chosen with --scenario. The studies that
// use database/sql need --connections multi-producer; tern's needs
// --overlap pairs; the safe variants are proved with --max-depth 2.
//
//	go run ./cmd/gostudies run --scenario gorm-first-or-create-racy --connections multi-producer             # exit 1
//	go run ./cmd/gostudies run --scenario gorm-first-or-create-fixed --connections multi-producer --max-depth 2 # exit 0
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
