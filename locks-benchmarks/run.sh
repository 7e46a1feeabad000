#!/usr/bin/env bash
# The whole comparison in one command: builds the benchmarks (and the modules they measure) from this tree,
# runs every benchmark beside its rivals and floor, and rewrites the results section of docs/benchmarks.md.
# About 17 minutes on 2 cores; run it on a quiet machine: the report records the load before, during and after,
# and a loaded run gets its figures but "loaded, no verdict" instead of met or missed (docs/benchmarks.md).
#
#   locks-benchmarks/run.sh                  full run, updates docs/benchmarks.md
#   locks-benchmarks/run.sh --quick          everything once, briefly: checks that it all runs (numbers meaningless)
#   locks-benchmarks/run.sh --only 'Redis'   some suites only (results in locks-benchmarks/target/comparison)
#   SKIP_BUILD=1 locks-benchmarks/run.sh     reuse locks-benchmarks/target/benchmarks.jar
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  mvn -q -B -pl locks-benchmarks -am package -DskipTests
fi

args=("$@")
if [[ $# -eq 0 ]]; then
  args=(--doc docs/benchmarks.md)
fi
# the parent only orchestrates: every benchmark runs in a JVM of its own with its own options
exec java -Xmx256m -cp locks-benchmarks/target/benchmarks.jar dev.locks.benchmarks.report.Comparison \
  --command "locks-benchmarks/run.sh${*:+ $*}" "${args[@]}"
