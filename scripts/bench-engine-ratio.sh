#!/usr/bin/env bash
# bench-engine-ratio.sh: the engine's speed against an older commit (BASE,
# default 64f744f, the engine before issue 17), measured in the same run on
# the same machine. Both trees' engine test binaries are built here; then,
# on one core (GOMAXPROCS=1), ROUNDS rounds play each benchmark on both
# trees back to back (old then new, new then old): BenchmarkSimulate
# (random layered DAGs, 10k and 100k ops) and BenchmarkSimulateFile over
# the Transformer training steps of
# BenchmarkSimulateTransformer (21,248 and 35,384 ops, written by
# engine/internal/benchgraphs with this tree's op times as measured times,
# so that both engines play the very same step). Load on a shared machine
# only slows a run down, so each side's best round is its figure; the
# median of the per-round ratios is printed too.
#
# With CALLGRIND=1 (and valgrind installed) it also counts the instructions
# per simulated op under callgrind (CG_REPEAT simulations minus one, so
# that the setup cancels out), which no load changes.
#
# No network: the base tree comes from the local git history (git
# archive) and modules from the module cache (GOPROXY=off).
#
# BENCHTIME (default 3s) is each benchmark's run: long enough for the
# steady state a placer or sweep sees. A run counts its first simulation,
# which allocates the arrays later ones reuse (at 100k ops about 160 ms
# against 42 ms warm): at 1s that one is a tenth of the new engine's
# time, while the old engine, which allocates every time, leaves part of
# its collector's work past the end of a short run.
#
# Usage: scripts/bench-engine-ratio.sh   (env: BASE, ROUNDS, BENCHTIME, CALLGRIND, CG_REPEAT)
set -euo pipefail
BASE=${BASE:-64f744f}
ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-3s}
CALLGRIND=${CALLGRIND:-0}
CG_REPEAT=${CG_REPEAT:-3}
GO=${GO:-go}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOPROXY=off GOFLAGS=-mod=readonly

mkdir -p "$tmp/base" "$tmp/graphs"
git -C "$root" archive "$BASE" | tar -x -C "$tmp/base"
cp "$root/engine/bench_file_test.go" "$tmp/base/engine/"
echo "building the engine benchmarks of $BASE and of this tree ($(git -C "$root" rev-parse --short HEAD))" >&2
(cd "$tmp/base" && $GO test -c -o "$tmp/old.test" ./engine)
(cd "$root" && $GO test -c -o "$tmp/new.test" ./engine)
(cd "$root" && $GO run ./engine/internal/benchgraphs "$tmp/graphs")

# the benchmarks, one at a time: each round plays each of them on both
# trees back to back (old then new, new then old in the next round), so
# that the two figures of a pair see the same load on a shared machine
benches=('^BenchmarkSimulate$/^ops=10000$' '^BenchmarkSimulate$/^ops=100000$')
for f in "$tmp"/graphs/*.json; do
	benches+=("^BenchmarkSimulateFile\$/^$(basename "$f" .json)\$")
done
run() { # run TREE ROUND BENCH: one benchmark of one tree, appended to $tmp/TREE.ROUND
	PLACESIM_BENCH_GRAPHS="$tmp/graphs" GOMAXPROCS=1 "$tmp/$1.test" -test.run '^$' \
		-test.bench "$3" -test.benchtime "$BENCHTIME" -test.benchmem >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" >&2; exit 1; }
	cat "$tmp/out" >>"$tmp/$1.$2"
}
for r in $(seq 1 "$ROUNDS"); do
	echo "round $r of $ROUNDS" >&2
	for b in "${benches[@]}"; do
		if [ $((r % 2)) = 1 ]; then run old "$r" "$b"; run new "$r" "$b"; else run new "$r" "$b"; run old "$r" "$b"; fi
	done
done

# one line per (tree, round, benchmark): tree round name ops/s allocs/simop
for t in old new; do
	for r in $(seq 1 "$ROUNDS"); do
		awk -v t="$t" -v r="$r" '/^Benchmark/ {
			ops = ""; allocs = ""; n = $1; sub(/.*ops=/, "", n)
			for (i = 2; i <= NF; i++) {
				if ($(i) == "ops/s") ops = $(i - 1)
				if ($(i) == "allocs/op") allocs = $(i - 1)
			}
			if (ops != "") print t, r, $1, ops, allocs / n
		}' "$tmp/$t.$r"
	done
done >"$tmp/all"

echo
echo "engine speed, GOMAXPROCS=1, $ROUNDS alternating rounds of $BENCHTIME: old = $BASE, new = $(git -C "$root" rev-parse --short HEAD)"
awk '
{ key = $3; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
  v[$1, $2, key] = $4; a[$1, key] = $5
  if ($4 > best[$1, key]) best[$1, key] = $4; rounds[$2] = 1 }
END {
  printf "%-52s %12s %12s %7s %8s %12s %12s\n", "benchmark", "old ops/s", "new ops/s", "ratio", "median", "old alloc/op", "new alloc/op"
  for (i = 1; i <= k; i++) {
    key = order[i]; m = 0
    for (r in rounds) if (v["old", r, key] > 0 && v["new", r, key] > 0) q[++m] = v["new", r, key] / v["old", r, key]
    for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (q[y] < q[x]) { t = q[x]; q[x] = q[y]; q[y] = t }
    med = m % 2 ? q[(m + 1) / 2] : (q[m / 2] + q[m / 2 + 1]) / 2
    name = key; sub(/^Benchmark/, "", name)
    printf "%-52s %12.0f %12.0f %6.2fx %7.2fx %12.4f %12.4f\n", name, best["old", key], best["new", key], best["new", key] / best["old", key], med, a["old", key], a["new", key]
  }
  print "(ops/s: best round; ratio: best new / best old; median: of the per-round ratios; alloc/op: allocations per simulated op)"
}' "$tmp/all"

if [ "$CALLGRIND" = 1 ]; then
	if ! command -v valgrind >/dev/null; then
		echo "CALLGRIND=1: valgrind is not installed; no instruction counts" >&2
		exit 0
	fi
	echo
	echo "instructions per simulated op (callgrind, GOGC=off: $CG_REPEAT simulations minus one, per op)"
	printf "%-52s %12s %12s %7s\n" graph old new ratio
	for g in ops=10000 ops=100000 "$tmp"/graphs/*.json; do
		case $g in
		ops=*) env="PLACESIM_SIM_OPS=${g#ops=}"; name="Simulate/$g" ;;
		*) env="PLACESIM_SIM_FILE=$g"; name="SimulateFile/$(basename "$g" .json)" ;;
		esac
		for t in old new; do
			# N runs minus one run: the setup (building or reading the
			# graph) cancels out. valgrind 3.19 knows neither RDTSCP nor
			# Go's preemption signals.
			for r in 1 "$CG_REPEAT"; do
				env "$env" PLACESIM_SIM_REPEAT="$r" GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 GOGC=off \
					valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$t.$r" \
					"$tmp/$t.test" -test.run '^TestSimulateRepeat$' -test.count 1 -test.v >"$tmp/cg.$t.log" 2>&1 ||
					{ cat "$tmp/cg.$t.log" >&2; exit 1; }
			done
			ops=$(sed -n 's/.*ops=\([0-9]*\).*/\1/p' "$tmp/cg.$t.log" | head -1)
			one=$(awk '/^totals:/ { print $2 }' "$tmp/cg.$t.1")
			awk -v div="$(((CG_REPEAT - 1) * ops))" -v one="$one" '/^totals:/ { printf "%d\n", ($2 - one) / div }' "$tmp/cg.$t.$CG_REPEAT" >"$tmp/ir.$t"
		done
		printf "%-52s %12d %12d %6.2fx\n" "$name" "$(cat "$tmp/ir.old")" "$(cat "$tmp/ir.new")" \
			"$(awk -v o="$(cat "$tmp/ir.old")" -v n="$(cat "$tmp/ir.new")" 'BEGIN { print o / n }')"
	done
	echo "(ratio: old instructions / new)"
fi
