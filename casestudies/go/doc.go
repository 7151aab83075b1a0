// Package gostudies reproduces published races in Go modules that Go
// teams use with PostgreSQL, each with the real module at a pinned version
// from the module proxy, the unsafe way and the safe way (an older release
// and the release with the fix, or two APIs of one release):
//
//   - gooseup: pressly/goose v3.26.0, two instances call goose.Up (issue
//     #258) against the Provider with a Postgres session locker (#335);
//   - migrateversiontable: golang-migrate v3.5.4 creates schema_migrations
//     without its advisory lock (issue #55) against v4.18.3 (PR #150);
//   - gormfirstorcreate: gorm.io/gorm v1.31.1 FirstOrCreate, a SELECT then
//     an INSERT (issues #5803 and #6253), against Create with ON CONFLICT
//     DO NOTHING followed by First;
//   - ternversiontable: jackc/tern v1.9.1 creates its version table
//     outside the advisory lock (issue #19), against tern/v2 v2.3.4.
//
// This is a Go module of its own (its go.mod replaces the interleave
// module with ../..) so that the libraries studied never enter the
// interleave module's graph. Each study is a package whose actors are
// ordinary interleave.Actor functions; this package holds what they share:
// the Study record and the measurements of docs/case-studies.md.
//
//	cd casestudies/go && go test -count=1 ./...   # every study (CI)
//	cd casestudies/go && go test -count=1 . -run TestMeasure -gostudies.measure -v -timeout 2h
package gostudies
