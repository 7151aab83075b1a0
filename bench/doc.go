// Package bench holds Interleave's benchmarks. Every figure is reported next
// to a baseline measured in the same run (a direct connection, the same SQL
// run serially), never as an absolute time alone:
//
//	go test -run '^$' -bench . -benchtime 3s ./bench
package bench
