#!/usr/bin/env bash
# Longer fuzz campaigns, outside CI: each target alone, with one fuzzing
# worker (-parallel 1) so that one core stays free. For each target the log
# keeps the last progress line (elapsed, executions, new interesting inputs)
# and the inputs the campaign added to the go command's fuzz cache are copied
# into the package's testdata/fuzz/<Target>/, where `go test` replays them as
# seeds from then on. A failing input is written there by the fuzzer itself.
#
#   bench/fuzz/campaign.sh [FUZZTIME] [pkg:Target ...]
#
# Default: 10m for every fuzz target of the module.
set -u
cd "$(dirname "$0")/../.."
fuzztime=${1:-10m}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(
		./netproxy:FuzzFramer
		./netproxy:FuzzBackendScanner
		./artifact:FuzzDecode
		./scenario:FuzzLoadYAML
		./scenario:FuzzParseSpec
		./capture:FuzzTrace
		./capture:FuzzDecode
		./capture:FuzzReadProxyFile
		./capture/pcapng:FuzzWrite
	)
fi
module=$(go list -m)
cache=$(go env GOCACHE)/fuzz
logdir=${FUZZ_LOG_DIR:-/tmp/interleave-fuzz-logs}
mkdir -p "$logdir"
for t in "${targets[@]}"; do
	pkg=${t%%:*}
	name=${t##*:}
	importpath=$module/${pkg#./}
	cachedir=$cache/$importpath/$name
	before=$(mktemp)
	ls "$cachedir" 2>/dev/null | sort >"$before"
	log=$logdir/$(echo "${pkg#./}" | tr / -)-$name.log
	start=$(date +%s)
	go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	added=0
	for f in $(ls "$cachedir" 2>/dev/null | sort | comm -13 "$before" -); do
		mkdir -p "$pkg/testdata/fuzz/$name"
		cp "$cachedir/$f" "$pkg/testdata/fuzz/$name/campaign-$f"
		added=$((added + 1))
	done
	rm -f "$before"
	last=$(grep -E '^fuzz: elapsed' "$log" | tail -1)
	printf '%s %s: exit %d, wall %ds, kept %d new inputs; %s\n' "$pkg" "$name" "$rc" "$((end - start))" "$added" "$last" | tee -a "$logdir/summary.txt"
	if [ $rc -ne 0 ]; then
		grep -E 'Failing input written|--- FAIL|panic' "$log" | head -5 | tee -a "$logdir/summary.txt"
	fi
done
