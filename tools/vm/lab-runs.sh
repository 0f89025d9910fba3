# shellcheck shell=bash
# --runs N in the VM lab: each kernel booted N times, the boots
# interleaved (A1 B1 A2 B2 ...: a change of the host's state in between
# reaches every kernel alike), each boot its own run directory under the
# kernel's label; with --precision, more rounds (at most --max-runs) until
# the half-width of each kernel's runs' means is within it (mmbench
# precision). Sourced by tools/vm/lab-run.sh; uses the lab's variables
# (kernels, labels, interrupted, mmbench_bin) and front_runs,
# front_max_runs, front_precision (tools/lib/front.sh).
#
# Sets, per kernel i: kdir[i] its first run directory (empty when none came
# back), kwhy[i] why its first failed run failed, kruns[i] its run
# directories that have results.csv (blank-separated; the run ids hold no
# blank); dirs every run directory in order; rc_all the worst exit status
# (fail 1 over usage 2 over pass 0; skip 4 only when every run skipped).

# lab_rounds: run every kernel front_runs times (or more, see above); with
# more than one run, then each kernel's precision between its runs
# (mmbench precision).
lab_rounds()
{
	local i

	lab_rounds_run
	[ "$front_runs" -gt 1 ] && [ -z "$interrupted" ] || return 0
	for i in "${!kernels[@]}"; do
		[ -n "${kruns[$i]:-}" ] || continue
		echo
		echo "precision of ${kernels[$i]}'s runs:"
		# shellcheck disable=SC2086 # kruns holds blank-separated paths
		"$mmbench_bin" precision ${front_precision:+--precision "$front_precision"} ${kruns[$i]}
	done
	return 0
}

lab_rounds_run()
{
	local round=0 i rc more

	rc_all= dirs=() kdir=() kwhy=() kruns=()
	while :; do
		round=$((round + 1))
		for i in "${!kernels[@]}"; do
			[ -n "$interrupted" ] && return
			[ "$front_runs" -gt 1 ] &&
				vm_log "round $round of $front_runs${front_precision:+ (at most $front_max_runs)}: ${kernels[$i]}"
			run_one "${kernels[$i]}" "${labels[$i]:-}"
			rc=$?
			# the first run with results (else the first run) stands
			# for the kernel in the lab's checks
			if [ "$round" = 1 ] || { [ ! -s "${kdir[$i]}/results.csv" ] &&
				[ -s "$run_dir/results.csv" ]; }; then
				kdir[$i]=$run_dir
			fi
			[ -z "${kwhy[$i]:-}" ] && kwhy[$i]=$run_why
			[ -n "$run_dir" ] && dirs+=("$run_dir")
			[ -n "$run_dir" ] && [ -s "$run_dir/results.csv" ] &&
				kruns[$i]="${kruns[$i]:-}${kruns[$i]:+ }$run_dir"
			case "$rc_all,$rc" in
			,*) rc_all=$rc ;;
			*,1|1,*) rc_all=1 ;;
			*,2|2,*) rc_all=2 ;;
			4,4) rc_all=4 ;;
			*) rc_all=0 ;;
			esac
		done
		[ "$round" -lt "$front_runs" ] && continue
		[ -n "$front_precision" ] && [ "$front_runs" -gt 1 ] || return 0
		more=
		for i in "${!kernels[@]}"; do
			# a kernel without results: more boots of it measure nothing
			[ -n "${kruns[$i]:-}" ] || continue
			# shellcheck disable=SC2086 # kruns holds blank-separated paths
			"$mmbench_bin" precision --precision "$front_precision" ${kruns[$i]} \
				>/dev/null 2>&1 || more+=" ${kernels[$i]}"
		done
		if [ -z "$more" ]; then
			vm_log "every kernel's runs within --precision $front_precision% after $round rounds"
			return 0
		fi
		if [ "$round" -ge "$front_max_runs" ]; then
			vm_log "--max-runs $front_max_runs before the runs' means reached --precision $front_precision% ($more)"
			return 0
		fi
		vm_log "after $round rounds the runs' means of$more are not within --precision $front_precision%: one more round"
	done
}

# lab_compare BASE_DIR NEW_DIR...: tools/compare-report of the pair. One
# run per kernel: one side per argument (--per-arg). Several: each kernel's
# runs pooled into its side by their label (so the kernels' labels must
# differ: give --label per --vm when two kernels have one release).
lab_compare()
{
	local a i side=() seen=() l lbl

	if [ "$front_runs" = 1 ]; then
		"$VM_TOP/tools/compare-report" --out "$root" --per-arg "${cmpargs[@]}" "$@"
		return
	fi
	for a in "$@"; do
		for i in "${!kernels[@]}"; do
			[ "${kdir[$i]}" = "$a" ] || continue
			lbl=$("$mmbench_bin" field --where key=label --last "$a/meta.csv" value 2>/dev/null)
			for l in "${seen[@]}"; do
				[ "$l" = "$lbl" ] && { vm_log "no comparison: two kernels ran under the label '$lbl': with --runs, give --label once per --vm"; return 1; }
			done
			seen+=("$lbl")
			# shellcheck disable=SC2206
			side+=(${kruns[$i]})
		done
	done
	"$VM_TOP/tools/compare-report" --out "$root" "${cmpargs[@]}" "${side[@]}"
}
