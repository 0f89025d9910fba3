# shellcheck shell=bash
# tools/nightly, part: the comparisons (vs the baseline and the previous run),
# retention and trends.
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- compare

judge_args=() prev='' night_measured=() night_excl=() nm_file='' cp_new=0 cp_text='' det_text=''
rerun_note='' cp_suspects='' suite_deadline=0
set_judge_args() {
	judge_args=(--min-change "${cfg[min_change_pct]}")
	[ -n "${cfg[judge]}" ] && judge_args+=(--judge "${cfg[judge]}")
}

# compare NAME BASE NEW: tools/compare-report into $ndir/NAME; sets
# cmp_text (the digest), cmp_worse (count, empty when not compared) and
# cmp_missing (judged metrics measured on BASE and not on NEW).
compare() {
	local name=$1 base=$2 new=$3 opts=(--per-arg --alpha "${cfg[alpha]}")
	local log=$ndir/$1.log rc dir
	cmp_worse='' cmp_text='' cmp_missing=0
	[ "${cfg[force_compare]}" = yes ] && opts+=(--force)
	[ "${cfg[compare_plots]}" = no ] && opts+=(--no-plots)
	timeout -k 10 "$(remaining 60)" "$top/tools/compare-report" --out "$ndir" "${opts[@]}" \
		"$base" "$new" >"$log" 2>&1
	rc=$?
	dir=$(sed -n 's|^report: \(.*\)/report.md$|\1|p' "$log" | tail -n1)
	if { [ $rc -ne 0 ] && [ $rc -ne 3 ]; } || [ ! -s "$dir/compare.csv" ]; then
		cmp_text="not compared: $(grep -v '^$' "$log" | grep -v '^  ' | tail -n1 | cut -c1-300)"
		return 1
	fi
	rm -rf "${ndir:?}/$name"
	mv "$dir" "$ndir/$name"
	# Lines with a spread are judged by their history (changes below):
	# here only exact evidence is; cases the host disturbed tonight are
	# not measured, not missing.
	cmp_text=$("$mmhistory" digest "${judge_args[@]}" --exact-only \
		${nm_file:+--not-measured "$nm_file"} "$ndir/$name/compare.csv")
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || { cmp_text="not compared: digest failed: $cmp_text"; return 1; }
	cmp_worse=${cmp_text%% *}
	# "...; N judged missing from NEW": the digest's first line. A metric
	# that vanished cannot be judged, so nothing says it is not worse.
	cmp_missing=$(sed -n '1s/.*; \([0-9]*\) judged missing from NEW$/\1/p' <<<"$cmp_text")
	cmp_missing=${cmp_missing:-0}
	return 0
}

# The baseline side: a run directory as it is; a label as a directory of
# links to its runs of this host (all hosts with pool_hosts), this run
# excluded. Sets base_arg and base_note.
baseline_side() {
	local runs=() d host_opt=(--host "$host")
	base_arg='' base_note=''
	case $base_kind in
	none) base_note="no baseline configured: nothing judged against a baseline"; return 1 ;;
	run) base_arg=$base_path; base_note="run $base_path"; return 0 ;;
	esac
	[ "${cfg[pool_hosts]}" = yes ] && host_opt=()
	if [ -d "$base_path" ]; then
		# Runs the history records as failed, skipped or refused are no
		# baseline: a night killed half-way measured nothing to trust.
		mapfile -t runs < <("$mmhistory" runs "$base_path" "${host_opt[@]}" \
			"${night_excl[@]}" --history "$hist")
	fi
	if [ ${#runs[@]} -eq 0 ]; then
		base_note="label $base_id has no other run${host_opt[*]:+s of host $host} yet"
		return 1
	fi
	mkdir -p "$ndir/baseline-runs"
	for d in "${runs[@]}"; do
		ln -sfn "$(cd "$d" && pwd)" "$ndir/baseline-runs/$(basename "$d")"
	done
	base_arg=$ndir/baseline-runs
	base_note="label $base_id, ${#runs[@]} run(s)${host_opt[*]:+ of $host}"
}

# missing_note SIDE: judged metrics of SIDE that this run did not measure
# make the night one that could not be judged (exit 1), named in the
# history's reason.
missing_note() {
	[ "$cmp_missing" -gt 0 ] || return 0
	judged_fail=1
	judge_why+="${judge_why:+; }$cmp_missing judged metric(s) of the $1 missing from this run: $(
		sed -n 's/^  MISSING \(.*\]\):.*/\1/p' <<<"$cmp_text" | head -n 5 | paste -sd, | sed 's/,/, /g')"
}

# The night's measured runs as one side: the run itself, or a directory
# of links to its runs (runs = N).
night_side() {
	local i d
	night_arg=$p_run_dir night_measured=()
	for i in "${!night_runs[@]}"; do
		d=${night_runs[$i]}
		case ${night_st[$i]} in ok|not_measured) [ -s "$d/results.csv" ] && night_measured+=("$d") ;; esac
	done
	[ ${#night_measured[@]} -gt 1 ] || return 0
	mkdir -p "$ndir/night-runs"
	for d in "${night_measured[@]}"; do
		ln -sfn "$(cd "$d" && pwd)" "$ndir/night-runs/$(basename "$d")"
	done
	night_arg=$ndir/night-runs
}

compare_all() {
	local prev_rel d
	worse_base='' worse_prev='' judged_fail=0 judge_why=
	set_judge_args
	night_excl=()
	for d in "${night_runs[@]}"; do night_excl+=(--exclude "$d"); done
	nm_file=
	[ -s "$state/not-measured-$host" ] && nm_file=$state/not-measured-$host
	night_side
	prev_rel=$("$mmhistory" select "$hist" --host "$host" --status ok,not_measured --with-results \
		--last 1 --fields run_dir 2>/dev/null)
	prev=
	[ -n "$prev_rel" ] && case "$prev_rel" in /*) prev=$prev_rel ;; *) prev=$root/$prev_rel ;; esac
	if baseline_side; then
		if compare vs-baseline "$base_arg" "$night_arg"; then
			worse_base=$cmp_worse
			missing_note baseline
			ledger_text=$("$mmhistory" ledger-update "$ledger" "$ndir/vs-baseline/compare.csv" \
				--host "$host" --baseline "$base_id" --run "$p_run_dir" --date "$p_date" \
				--kernel "$p_kernel" ${prev:+--last-good "$prev"} "${judge_args[@]}" \
				--exact-only 2>&1)
		else
			judged_fail=1 judge_why="vs baseline ($base_note): $cmp_text"
		fi
		base_text="vs baseline ($base_note): $cmp_text"
	else
		base_text="vs baseline: $base_note"
		# A label that has no run yet but is this run's own: the first night.
		[ "$base_kind" = label ] && [ "$base_id" != "$label" ] &&
			judged_fail=1 judge_why=$base_text
	fi
	if [ -z "$prev" ]; then
		prev_text="vs previous: no earlier measured run of $host"
	elif compare vs-previous "$prev" "$night_arg"; then
		worse_prev=$cmp_worse
		prev_text="vs previous run ($prev_rel): $cmp_text"
		missing_note "previous run"
	else
		prev_text="vs previous run ($prev_rel): $cmp_text"
	fi
	changes
}

# ---------------------------------------------------------------- history

# detect [OPTIONS]: mmchange detect over this host's history and tonight's
# measured runs into $ndir/changes.csv; sets cp_rc and cp_out.
detect() {
	local args=("$root" --host "$host" --history "$hist" --ledger "$ledger" --night-date "$p_date"
		--config-id "$(realpath "$config")" --confirm "${cfg[confirm_nights]}"
		--host-margin "${cfg[host_margin_pct]}" --min-sd "${cfg[change_min_sd]}"
		--t-alpha "${cfg[change_t_alpha]}" --csv "$ndir/changes.csv" "${judge_args[@]}") d
	for d in "${night_measured[@]}"; do
		[ "$d" = "$rerun_dir" ] || args+=(--add-run "$d")
	done
	cp_out=$(timeout -k 10 "$(remaining 120)" "$mmchange" detect "${args[@]}" "$@" 2>"$ndir/changes.log")
	cp_rc=$?
}

# The suite's lines of WORKLOADS (words), for a rerun; the whole suite when
# none matches.
rerun_suite() {
	local out=$state/rerun-suite-$host.suite
	awk -v want=" $* " '/^[[:space:]]*(#|$)/ { next } index(want, " " $1 " ") { print; n++ }
		END { exit !n }' "$suite_file" >"$out" && echo "$out" || echo "$suite_file"
}

# Judge every metric by its history (tools/mmtrend/mmchange): a suspected
# regression is re-run once (rerun_suspect) before it counts; the ledger
# records the regressions that hold. Sets cp_new (new regressions), cp_text
# (the change points worth a line) and det_text (smallest steps).
changes() {
	local w first_s
	cp_new=0 cp_text='' det_text='' rerun_note=''
	[ ${#night_measured[@]} -gt 0 ] || night_measured=("$p_run_dir")
	if [ "${cfg[rerun_suspect]}" = yes ]; then
		detect --suspects
		if [ "$cp_rc" = 3 ]; then
			w=$("$top/bench/mmbench" field --where ledger=suspect "$ndir/changes.csv" workload |
				sort -u | paste -sd' ')
			first_s=$(($(date +%s) - p_start))
			if [ $((suite_deadline - $(date +%s))) -lt "$first_s" ]; then
				rerun_note="suspected regression(s) in $w: no time left for a rerun (the suite took $first_s s); judged without it"
				detect
			else
				phase="the rerun"
				cp_suspects=$(grep -E '^  SUSPECT ' <<<"$cp_out")
				# shellcheck disable=SC2086  # workload names are words
				run_once "$(rerun_suite $w)" 1 1 rerun
				phase=comparisons
				case ${night_st[${#night_st[@]} - 1]} in
				ok|not_measured)
					night_measured+=("$rerun_dir")
					rerun_note="suspected regression(s) in $w re-run once: $rerun_dir"
					detect --rerun "$rerun_dir" ;;
				*)
					rerun_note="suspected regression(s) in $w: the rerun failed (${night_why[${#night_why[@]} - 1]}); judged without it"
					detect --rerun-done ;;
				esac
			fi
		fi
	else
		detect
	fi
	case $cp_rc in
	0|3) ;;
	*)
		judged_fail=1
		judge_why+="${judge_why:+; }the history could not be judged: $(tail -n1 "$ndir/changes.log")"
		cp_text="history: not judged: $(tail -n1 "$ndir/changes.log")"
		return ;;
	esac
	[ "$cp_rc" = 3 ] && cp_new=$("$top/bench/mmbench" field --where ledger=new "$ndir/changes.csv" \
		workload | grep -c .)
	cp_text=$(sed '/^smallest step found/,$d' <<<"$cp_out")
	det_text=$(sed -n '/^smallest step found/,$p' <<<"$cp_out")
	ledger_text=$("$mmhistory" ledger-changes "$ledger" "$ndir/changes.csv" --host "$host" \
		--run "$p_run_dir" --date "$p_date" 2>&1)
}

# Seconds left before the total time limit, at least $1.
remaining() {
	local r=$((deadline - $(date +%s)))
	[ "$r" -ge "$1" ] && echo "$r" || echo "$1"
}

# ---------------------------------------------------------------- retention

# Delete one expired run directory: it must lie under the results root and
# look like a run (meta.csv, results.csv or run.log), never a symlink.
remove_run() {
	local d=$root/$1 parent
	case "$1" in /*|*..*|'') return 1 ;; esac
	[ -d "$d" ] && [ ! -L "$d" ] || return 0
	[ -e "$d/meta.csv" ] || [ -e "$d/results.csv" ] || [ -e "$d/run.log" ] || return 1
	rm -rf -- "$d" || return 1
	parent=$(dirname "$d")
	[ "$parent" != "$root" ] && rmdir "$parent" 2>/dev/null
	return 0
}

# The journal of a retention pass: rows are dropped from history.csv
# first (it never names a deleted directory), then the directories go; a
# pass cut short is finished by the next start.
finish_expire() {
	local j=$state/expire-$host d n=0
	[ -f "$j" ] || return 0
	while IFS= read -r d; do
		remove_run "$d" && n=$((n + 1))
	done <"$j"
	rm -f "$j"
	echo "$n"
}

retention() {
	local days=${cfg[retention_days]} keep=() list cutoff j=$state/expire-$host n d
	retention_text=
	[ "$days" -gt 0 ] || return 0
	keep=()
	for d in "${night_runs[@]}"; do keep+=(--keep "$d"); done
	[ ${#keep[@]} -gt 0 ] || keep=(--keep "$p_run_dir")
	[ -n "$prev" ] && keep+=(--keep "$prev")
	case $base_kind in
	label) keep+=(--keep-label "$base_id") ;;
	run) keep+=(--keep "$base_path") ;;
	esac
	[ -f "$ledger" ] && keep+=(--keep-ledger "$ledger")
	list=$("$mmhistory" expired "$hist" --host "$host" --days "$days" "${keep[@]}") || {
		retention_text="retention: not done (mmhistory expired failed)"
		return 1
	}
	cutoff=$(date -u -d "@$(($(date +%s) - days * 86400))" +%Y-%m-%dT%H:%M:%SZ)
	printf '%s\n' $list >"$j.tmp" && mv -f "$j.tmp" "$j"
	# shellcheck disable=SC2086  # run_dirs have no blanks (mmhistory checks)
	"$mmhistory" drop "$hist" --host "$host" --empty-before "$cutoff" $list >/dev/null || {
		rm -f "$j"
		retention_text="retention: not done (dropping rows from history.csv failed)"
		return 1
	}
	n=$(finish_expire)
	retention_text="retention: removed ${n:-0} run(s) of $host older than $days days (kept: the baseline, runs named in open regressions, the previous and this run)"
}

# ---------------------------------------------------------------- trends

trends() {
	local args=("$root" -o "$root/trends/$host" --alpha "${cfg[alpha]}" "${judge_args[@]}" --exact-only)
	trend_text=
	[ "${cfg[trends]}" = yes ] || return 0
	if [ "${cfg[pool_hosts]}" = yes ]; then
		args+=(--pool-hosts)
	else
		args+=(--host "$host")
	fi
	case $base_kind in
	label) args+=(--baseline "$base_id") ;;
	run) args+=(--baseline "$base_path") ;;
	esac
	timeout -k 10 "$(remaining 60)" "$mmtrend" "${args[@]}" >"$ndir/trends.log" 2>&1
	case $? in
	0|3) trend_text="trends: $root/trends/$host/report.md" ;;
	*) trend_text="trends: not drawn: $(grep -v '^$' "$ndir/trends.log" | tail -n1)" ;;
	esac
}
