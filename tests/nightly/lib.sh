# shellcheck shell=bash
# Helpers of the nightly tests (sourced after tests/lib.sh).
NIGHTLY=$TOP/tools/nightly
MMHISTORY=$TOP/tools/mmtrend/mmhistory-san
[ -x "$MMHISTORY" ] || MMHISTORY=$TOP/tools/mmtrend/mmhistory
MMSYNTH=$TOP/tools/mmtrend/mmsynth
FAKE=$TOP/tests/nightly/fake-mmbench
HOST=$(uname -n)

# Synthetic lines: pageout with two cases, a rate (higher), a time (lower)
# and an info metric. $1: % lost by loops_per_s of instances=2 (0: none).
fake_lines() {
	local loss=${1:-0}
	printf '%s\n' \
		"pageout instances=1 loops_per_s loops/s higher 100 1" \
		"pageout instances=2 loops_per_s loops/s higher $((180 - 180 * loss / 100)) 1.8" \
		"pageout instances=1 loop_time ns lower 5000 50" \
		"pageout instances=1 pages_out count info 1000 10"
}

# write_conf DIR [KEY = VALUE lines on stdin]: a config using the fake driver.
write_conf() {
	local rest
	rest=$(cat)
	{
		echo "suite = quick"
		echo "results = res"
		echo "lock = nightly.lock"
		echo "need_disk_mb = 1"
		echo "need_mem_mb = 1"
		echo "iterations = 5"
		# one run a night (the default is 2) unless the test says
		grep -q '^runs *=' <<<"$rest" || echo "runs = 1"
		[ -z "$rest" ] || printf '%s\n' "$rest"
	} >"$1/n.conf"
}

# A baseline run made directly by mmsynth: synth_run ROOT LABEL STAMP SEED [LOSS]
synth_run() {
	local lines=() l
	while IFS= read -r l; do lines+=(--line "$l"); done < <(fake_lines "${5:-0}")
	"$MMSYNTH" -o "$1/$2/$3-$HOST" --label "$2" --host "$HOST" --kernel 6.1.0-base \
		--stamp "$3" --seed "$4" -i 5 "${lines[@]}"
}
export NIGHTLY_NO_BUILD=1	# make check built everything; never rebuild mid-test
# The share of the CPUs other processes took while a night's suite ran: the
# stand-in driver's suite lasts milliseconds, in which the measured share is
# whatever the tests beside it did then; a fixed one keeps the change-point
# rule's host gate out of their answers (test_changes.sh tests the gate).
export MMBENCH_NIGHTLY_HOST_BUSY="0.0 0.0"

# noisy_mean SEED MEAN COV_PCT: MEAN * (1 + COV/100 * z), z a standard
# normal draw of awk's generator seeded with SEED (Box-Muller): a night's
# level with the noise between runs, the same for the same seed.
noisy_mean() {
	awk -v s="$1" -v m="$2" -v c="$3" 'BEGIN {
		srand(s); u = rand(); v = rand(); if (u < 1e-12) u = 1e-12
		printf "%.6g\n", m * (1 + c / 100 * sqrt(-2 * log(u)) * cos(6.283185307179586 * v)) }'
}
