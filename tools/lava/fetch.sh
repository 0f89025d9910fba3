# shellcheck shell=bash
# tools/lava/lava: waiting for jobs, and bringing their run directories home
# (sourced).

# One meta.csv row KEY,VALUE, quoted as mmbench writes rows (mmbench field
# --csv: the results library's CSV writer, never hand-made quoting).
meta_row()
{
	"$(mmbench_binary)" field --csv "$1" "$2"
}

# The console's lines in a raw job log (lavacli jobs logs --raw): the
# "target" messages, unescaped enough for what mmbench prints (its lines
# hold no backslash or double quote but in reasons, which are kept as-is).
target_lines()
{
	awk '
	index($0, "\"lvl\": \"target\"") && match($0, /"msg": ".*"\}$/) {
		m = substr($0, RSTART + 8, RLENGTH - 10)
		gsub(/\\"/, "\"", m); gsub(/\\\\/, "\\", m)
		print m
	}' "$1"
}

# LAVA's reason for an Incomplete job: the job result's error type and
# message (the last "case": "job" result line).
job_failure()
{
	awk '
	index($0, "\"lvl\": \"results\"") && index($0, "\"case\": \"job\"") {
		t = m = ""
		if (match($0, /"error_type": "[^"]*"/)) t = substr($0, RSTART + 15, RLENGTH - 16)
		if (match($0, /"error_msg": "([^"\\]|\\.)*"/)) m = substr($0, RSTART + 14, RLENGTH - 15)
		r = (t != "" ? t ": " : "") m
	}
	END { print r }' "$1"
}

# The job's state: sets j_state, j_health, j_device, j_type.
job_show()
{
	local out

	out=$(lava_cli jobs show "$1" --yaml 2>&1) || { vm_log "job $1: $out"; return 1; }
	j_state=$(lava_yaml_get state <<<"$out")
	j_health=$(lava_yaml_get health <<<"$out")
	j_device=$(lava_yaml_get device <<<"$out")
	j_type=$(lava_yaml_get device_type <<<"$out")
	[ "$j_device" = null ] && j_device=
	[ -n "$j_state" ]
}

# The run directory in the log: "@@MMLAVA begin LINES SHA256", the numbered
# base64 lines, "@@MMLAVA end" (tools/lava/guest-run). Decoded, checked
# against its checksum and its listing (only regular files and directories
# under run/), unpacked into DIR/run. Prints why not, on failure.
unpack_payload()
{
	local lines=$1 dir=$2 n sum bad

	read -r n sum < <(awk '$1 == "@@MMLAVA" && $2 == "begin" { n = $3; s = $4 } END { print n, s }' "$lines")
	[ -n "$n" ] || { echo "the job's log holds no run directory (no '@@MMLAVA begin')"; return 1; }
	[[ $n =~ ^[0-9]+$ && $sum =~ ^[0-9a-f]{64}$ ]] || { echo "a malformed '@@MMLAVA begin' line"; return 1; }
	# The last transfer wins; each numbered line once, in order.
	awk -v n="$n" '
	$1 == "@@MMLAVA" && $2 == "begin" { delete d; got = 0; next }
	$1 == "@@MMLAVA" && $2 ~ /^[0-9]+$/ && NF == 3 && $3 ~ /^[A-Za-z0-9+\/=]+$/ {
		if (!($2 in d)) got++
		d[$2] = $3
	}
	END {
		if (got != n) exit 1
		for (i = 1; i <= n; i++) { if (!(i in d)) exit 1; print d[i] }
	}' "$lines" >"$dir/run.b64" ||
		{ echo "the run directory in the job's log is incomplete (expected $n lines)"; return 1; }
	base64 -d "$dir/run.b64" >"$dir/run.tgz" 2>/dev/null ||
		{ echo "the run directory in the job's log is not valid base64"; return 1; }
	[ "$(sha256sum "$dir/run.tgz" | cut -d' ' -f1)" = "$sum" ] ||
		{ echo "the run directory in the job's log fails its checksum"; return 1; }
	bad=$(tar -tvzf "$dir/run.tgz" 2>/dev/null | awk '
		{ t = substr($1, 1, 1); p = $NF }
		(t != "-" && t != "d") || (p != "run" && p != "run/" && index(p, "run/") != 1) || p ~ /(^|\/)\.\.(\/|$)/ { print; exit }')
	[ -z "$bad" ] || { echo "the run directory's archive holds an entry that is not a plain file under run/: $bad"; return 1; }
	mkdir -p "$dir/x" && tar -C "$dir/x" --no-same-owner -xzf "$dir/run.tgz" ||
		{ echo "the run directory's archive cannot be unpacked"; return 1; }
	[ -d "$dir/x/run" ] || { echo "the archive has no run directory"; return 1; }
}

meta_get() { [ -f "$1" ] && "$(mmbench_binary)" field --where key="$2" --last "$1" value 2>/dev/null; }

# A new directory ROOT/LABEL/RUN_ID (suffixed .2, .3... if taken).
new_run_dir()
{
	local d=$root/$1/$2 n=1

	while [ -e "$d" ]; do
		n=$((n + 1))
		d=$root/$1/$2.$n
	done
	mkdir -p "$(dirname "$d")" || return 1
	echo "$d"
}

# fetch_job ID: bring the finished job's run home. Sets run_dir (empty when
# none could be made), run_rc (the run's exit status) and run_why (why it
# failed, empty when it did not).
fetch_job()
{
	local id=$1 jd=$wd/job.$1 why= label run_id rel gexit kase row accel worker uri reason panic

	run_dir= run_rc=1 run_why=
	job_show "$id" || { run_why="LAVA does not know job $id"; return 1; }
	# Stopped by a signal, a job that is still cancelling is fetched as it
	# is (the worker notices a cancel at its next ping, up to ~45 s here).
	if [ "$j_state" = Canceling ] && [ -n "${interrupted:-}" ]; then
		j_health=Canceling
	elif [ "$j_state" != Finished ]; then
		run_why="job $id is $j_state, not finished"
		vm_log "$run_why"
		return 1
	fi
	mkdir -p "$jd"
	lava_cli jobs logs --raw --no-follow "$id" >"$jd/log.yaml" 2>"$jd/log.err" ||
		{ run_why="cannot read job $id's log: $(tail -n 1 "$jd/log.err")"; vm_log "$run_why"; return 1; }
	lava_cli jobs definition "$id" >"$jd/job.yaml" 2>/dev/null
	target_lines "$jd/log.yaml" | tr -d '\r' >"$jd/console"
	gexit=$(awk '$1 == "@@MMLAVA" && $2 == "exit" { e = $3 } END { print e }' "$jd/console")

	if why=$(unpack_payload "$jd/console" "$jd"); then
		label=$(meta_get "$jd/x/run/meta.csv" label)
		run_id=$(meta_get "$jd/x/run/meta.csv" run_id)
		lava_safe_name "$label" || label=$(awk -F"'" '/^  mmbench.label:/ { print $2 }' "$jd/job.yaml")
		lava_safe_name "$label" || label=lava
		lava_safe_name "$run_id" || run_id=$(date -u +%Y%m%d-%H%M%S)-lava$id
		run_dir=$(new_run_dir "$label" "$run_id") || return 1
		mv "$jd/x/run" "$run_dir" || { vm_log "cannot move the run into $run_dir"; return 1; }
	else
		# No run directory came back (the guest died, LAVA gave up, or
		# the transfer broke): a failed run, as the lab records a dead
		# guest, with what is known.
		label=$(awk -F"'" '/^  mmbench.label:/ { print $2 }' "$jd/job.yaml")
		rel=$(awk -F"'" '/^  mmbench.kernel_release:/ { print $2 }' "$jd/job.yaml")
		lava_safe_name "$label" || label=$rel
		lava_safe_name "$label" || label=lava
		run_id=$(date -u +%Y%m%d-%H%M%S)-lava$id
		run_dir=$(new_run_dir "$label" "$run_id") && mkdir -p "$run_dir" || return 1
		{
			"$(mmbench_binary)" field --header meta.csv
			meta_row schema "$("$(mmbench_binary)" field --schema)"
			meta_row run_id "$run_id"
			meta_row label "$label"
			[ -n "$rel" ] && meta_row kernel_release "$rel"
		} >"$run_dir/meta.csv"
		# The case it died in: the last "[i/N] WORKLOAD CASE" line.
		kase=$(awk '/^\[[0-9]+\/[0-9]+\] / { l = $0 } END { print l }' "$jd/console")
		if [ -n "$kase" ] && [ -z "$gexit" ]; then
			kase=${kase#*] }
			mm=$(mmbench_binary) || return 1
			# the outcome, then empty fields up to the header's columns
			local row=(1 "$run_id" "$label" "$rel" "${kase%% *}" "${kase#* }"
				fail "the LAVA job ended during this case: $j_health" 0 '')
			local hdr
			hdr=$("$mm" field --header cases.csv)
			while [ "${#row[@]}" -lt "$(awk -F, '{ print NF }' <<<"$hdr")" ]; do row+=(""); done
			{
				echo "$hdr"
				"$mm" field --csv "${row[@]}"
			} >"$run_dir/cases.csv"
		fi
	fi
	cp "$jd/job.yaml" "$run_dir/lava-job.yaml" 2>/dev/null
	cp "$jd/console" "$run_dir/lava-console.log"

	# The job's facts, next to the guest's.
	worker=$(lava_cli devices show "$j_device" 2>/dev/null | awk -F' *: ' '$1 == "worker" { print $2 }')
	accel=$(awk '/Boot command: .*qemu-system/ { a = (/-enable-kvm|-accel kvm/) ? "kvm" : (/-accel tcg/ ? "tcg" : "") } END { print a }' "$jd/log.yaml")
	uri=$(lava_server_url)
	{
		meta_row lava_job_id "$id"
		meta_row lava_device "$j_device"
		meta_row lava_device_type "$j_type"
		[ -n "$worker" ] && meta_row lava_worker "$worker"
		[ -n "$uri" ] && meta_row lava_server "$uri"
		meta_row lava_health "$j_health"
		[ -n "$accel" ] && [ -z "$(meta_get "$run_dir/meta.csv" vm_accel)" ] && meta_row vm_accel "$accel"
	} >>"$run_dir/meta.csv"

	case "$j_health" in
	Complete)
		if [ -n "$why" ]; then
			run_why="LAVA job $id completed, but $why"
		elif [[ $gexit =~ ^[0-9]+$ ]]; then
			run_rc=$gexit
			[ "$gexit" = 0 ] || [ "$gexit" = 4 ] || run_why="mmbench in the job exited $gexit (see cases.csv)"
		else
			run_why="LAVA job $id completed without mmbench's exit status"
		fi ;;
	*)
		reason=$(job_failure "$jd/log.yaml")
		if [ -z "$reason" ] && [[ $j_health == Cancel* ]]; then
			reason="cancelled before it finished (lavacli jobs cancel, the web UI, or tools/lava/lava stopped by a signal)"
		fi
		run_why="LAVA job $id is $j_health: ${reason:-its log gives no reason}"
		# The guest's own last word, when its kernel said why it died.
		panic=$(grep -o 'Kernel panic - not syncing: .*' "$jd/console" | tail -n 1 | cut -c1-200)
		[ -n "$panic" ] && run_why="$run_why; the guest's kernel: $panic"
		[ -n "$why" ] || run_why="$run_why (the run directory came back before it ended)" ;;
	esac
	if [ -n "$run_why" ]; then
		[ "$run_rc" = 0 ] || [ "$run_rc" = 4 ] && run_rc=1
		meta_row lava_failure "$run_why" >>"$run_dir/meta.csv"
		{
			echo "lava: FAILED: $run_why"
			echo "lava: last console lines:"
			grep -v '^@@MMLAVA [0-9]' "$jd/console" | tail -n 20 | sed 's/^/lava: | /'
		} >>"$run_dir/run.log"
		vm_log "FAILED: $run_why; last console lines:"
		grep -v '^@@MMLAVA [0-9]' "$jd/console" | tail -n 20 | sed 's/^/  | /' >&2
	else
		echo "lava: job $id on $j_device ($j_type): $j_health" >>"$run_dir/run.log"
	fi
	{ [ -s "$run_dir/results.csv" ] || [ -s "$run_dir/cases.csv" ]; } &&
		"$(mmbench_binary)" summary "$run_dir"
	return 0
}

# The server's address without credentials, for the record.
lava_server_url()
{
	local st

	if [ -n "$LAVA_URI" ]; then
		sed -E 's#^(https?://)[^@/]*@#\1#; s#/RPC2/?$##' <<<"$LAVA_URI"
	elif [ -n "$LAVA_IDENTITY" ]; then
		echo "lavacli:$LAVA_IDENTITY"
	else
		st=$(lava_state_dir)
		awk '$1 == "uri:" { sub(/\/RPC2\/?$/, "", $2); print $2 }' "$st/config/lavacli.yaml" 2>/dev/null
	fi
}

# Progress of a running job from its new log lines: the plan and the case
# that started ("[i/N] WORKLOAD CASE").
progress()
{
	local id=$1 new=$wd/new.$1 n last

	lava_cli jobs logs --raw --no-follow --start "${pos[$id]}" "$id" >"$new" 2>/dev/null || return 0
	n=$(wc -l <"$new")
	pos[$id]=$((pos[$id] + n))
	last=$(target_lines "$new" | tr -d '\r' | awk '/^\[[0-9]+\/[0-9]+\] / { l = $0 } END { print l }')
	if [ -n "$last" ] && [ "$last" != "${seen[$id]:-}" ]; then
		seen[$id]=$last
		last=${last#[}
		vm_log "job $id on ${dev[$id]}: case ${last%%]*}: ${last#*] }"
	fi
}

interrupted= signum=
on_signal()
{
	[ -n "$interrupted" ] && return
	# Only noted here: the trap may run inside a command whose output is
	# redirected (a log read); the loop says it.
	interrupted=$1 signum=$2
}

# Wait for every job in ids[] (state changes and case progress on stderr),
# fetch each, and compare them when there are two or more.
collect_all()
{
	local id poll=${MMBENCH_LAVA_POLL:-5} pending deadline rc_all= rc i cancelled=0
	declare -gA pos=() seen=() st=() dev=() done_=()

	trap 'on_signal TERM 15' TERM
	trap 'on_signal INT 2' INT
	trap 'on_signal HUP 1' HUP
	deadline=$((SECONDS + wait_timeout))
	for id in "${ids[@]}"; do pos[$id]=0; done
	while :; do
		pending=0
		for id in "${ids[@]}"; do
			[ -n "${done_[$id]:-}" ] && continue
			job_show "$id" || { done_[$id]=1; continue; }
			if [ "$j_state" != "${st[$id]:-}" ]; then
				st[$id]=$j_state dev[$id]=$j_device
				vm_log "job $id: $j_state${j_device:+ on $j_device}$([ "$j_state" = Finished ] && echo ", $j_health")"
			fi
			[ "$j_state" = Running ] && progress "$id"
			if [ "$j_state" = Finished ]; then done_[$id]=1; else pending=1; fi
		done
		[ "$pending" = 0 ] && break
		if [ -n "$interrupted" ] && [ "$cancelled" = 0 ]; then
			vm_log "stopped by SIG$interrupted: cancelling the jobs, keeping what they sent"
			for id in "${ids[@]}"; do
				[ -n "${done_[$id]:-}" ] || lava_cli jobs cancel "$id" >/dev/null 2>&1
			done
			cancelled=1
			# timeout(1) -k and batch systems give a minute before SIGKILL
			deadline=$((SECONDS + 50))
		fi
		if [ "$SECONDS" -ge "$deadline" ] && [ -n "$interrupted" ]; then
			vm_log "a job is still cancelling: fetching what it sent so far"
			break
		elif [ "$SECONDS" -ge "$deadline" ]; then
			vm_log "stopped waiting after $wait_timeout s; the jobs go on: tools/lava/lava collect ${ids[*]}"
			return 1
		fi
		sleep "$poll"
	done
	dirs=() kdir=() kwhy=()
	for i in "${!ids[@]}"; do
		[ -n "${done_[${ids[$i]}]:-}" ] || [ -n "$interrupted" ] || { rc_all=1; continue; }
		fetch_job "${ids[$i]}"
		rc=$run_rc
		kdir[$i]=$run_dir kwhy[$i]=$run_why
		[ -n "$run_dir" ] && dirs+=("$run_dir")
		case "$rc_all,$rc" in
		,*) rc_all=$rc ;;
		*,1|1,*) rc_all=1 ;;
		*,2|2,*) rc_all=2 ;;
		4,4) rc_all=4 ;;
		*) rc_all=0 ;;
		esac
	done
	echo
	for d in "${dirs[@]}"; do echo "results: $d"; done
	[ -n "$interrupted" ] && exit $((128 + signum))
	[ ${#ids[@]} -ge 2 ] && [ "$compare" = 1 ] || exit "${rc_all:-1}"
	compare_runs
}

# The first job's run is BASE, every other with results a NEW (as the VM
# lab's pairs: tools/compare-report --per-arg).
compare_runs()
{
	local i news=() crc

	echo
	if [ ! -s "${kdir[0]}/results.csv" ]; then
		vm_log "no comparison: the base run (job ${ids[0]}) has no results.csv${kwhy[0]:+: ${kwhy[0]}}"
		[ "$rc_all" = 4 ] && exit 4
		exit 1
	fi
	for ((i = 1; i < ${#ids[@]}; i++)); do
		if [ -s "${kdir[$i]}/results.csv" ]; then
			news+=("${kdir[$i]}")
		else
			vm_log "no comparison for job ${ids[$i]}: no results.csv${kwhy[$i]:+: ${kwhy[$i]}}"
		fi
	done
	[ ${#news[@]} -gt 0 ] || { vm_log "no comparison: no run besides the base has results"; exit 1; }
	"$VM_TOP/tools/compare-report" --out "$root" --per-arg "${cmpargs[@]}" "${kdir[0]}" "${news[@]}"
	crc=$?
	case "$crc" in
	0) ;;
	3) [ "$rc_all" = 0 ] && rc_all=3 ;;
	*) vm_log "no comparison: tools/compare-report exited $crc"; rc_all=1 ;;
	esac
	[ ${#news[@]} -eq $((${#ids[@]} - 1)) ] || rc_all=1
	exit "${rc_all:-1}"
}
