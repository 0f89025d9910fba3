# shellcheck shell=bash
# One guest run per kernel; sourced by tools/vm/lab, which has parsed and
# checked the options into the variables used here.

tcg_warned=0

# The kernel directory (vmlinuz, release, lib/modules/<rel>) for KERNEL: a
# Debian release is fetched (cached); a bzImage path is copied into the
# cache with the module tree that belongs to it, indexed by depmod.
resolve_kernel()
{
	local k=$1 rel sum kd src

	case "$k" in
	bullseye|bookworm|trixie|sid)
		"$VM_DIR/fetch-kernel" "${refresh[@]}" "$k"
		return ;;
	esac
	# Checked again: a pair's second kernel may be gone by its turn.
	rel=$(vm_bzimage_release "$k") || { vm_log "--vm $k: no longer a readable bzImage"; return 1; }
	sum=$(sha1sum "$k" | cut -c1-16) || return 1
	kd=$(vm_cache_dir)/kernels/local/$rel-$sum
	mkdir -p "$kd/lib/modules" || return 1
	[ -f "$kd/vmlinuz" ] || cp "$k" "$kd/vmlinuz" || return 1
	echo "$rel" >"$kd/release"
	readlink -f "$k" >"$kd/package"
	src=${moddir:-/lib/modules/$rel}
	rm -rf "${kd:?}/lib/modules/$rel"
	if [ ! -d "$src" ]; then
		vm_log "warning: no module tree for $rel ($src): the guest has built-in drivers only (--vm-module-dir DIR)"
	elif [ -f "$src/modules.dep" ]; then
		ln -s "$(readlink -f "$src")" "$kd/lib/modules/$rel"
	else
		cp -a "$src" "$kd/lib/modules/$rel" && depmod -b "$kd" "$rel" ||
			vm_die "$src: cannot index its modules (depmod)"
	fi
	echo "$kd"
}

# The image QEMU loads, and how it enters: the ELF vmlinux through its PVH
# note when the kernel has one (no in-guest decompression, no KASLR), else
# the bzImage. Unpacked once into the kernel's cache directory.
boot_image()
{
	local kd=$1

	if [ "$entry" != bzimage ]; then
		if [ -f "$kd/vmlinux" ] || { [ ! -f "$kd/vmlinux.none" ] &&
			vm_extract_vmlinux "$kd/vmlinuz" "$kd/vmlinux"; }; then
			echo "$kd/vmlinux pvh"
			return
		fi
		touch "$kd/vmlinux.none"
		[ "$entry" = pvh ] && vm_die "$kd/vmlinuz: no PVH-capable ELF vmlinux inside (CONFIG_PVH)"
	fi
	echo "$kd/vmlinuz bzimage"
}

pick_accel()
{
	local k=$1 a why

	if [ "$accel" != auto ]; then
		echo "$accel"
		return
	fi
	a=$("$VM_DIR/kvm-probe" -k "$k" 2>/dev/null)
	if [ "$a" = tcg ] && [ "$tcg_warned" = 0 ]; then
		why=$("$VM_DIR/kvm-probe" -v 2>&1 >/dev/null | sed 's/^kvm-probe: //')
		vm_log "warning: KVM unusable (${why:-probe boot failed}); QEMU uses TCG: times are emulated, compare them only within one VM setup" >&2
		tcg_warned=1
	fi
	echo "${a:-tcg}"
}

# Files the guest's init reads: its mmbench arguments (one per line), its
# settings, and the hooks.
write_guest_config()
{
	local wd=$1 kd=$2 k=$3 label=$4 a=$5 ent=$6 host i layout=""

	host=$(hostname)
	[[ $host =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || host=mmbench-vm
	for ((i = 0; i < nodes; i++)); do
		layout+="${layout:+;}$i:cpus=$((i * cpus / nodes))-$(((i + 1) * cpus / nodes - 1)),mem=${mem_mb}M"
	done
	{
		printf '%s\n' suite /etc/mmbench/suite -o /results/run
		[ -n "$label" ] && printf '%s\n' --label "$label"
		# A tools/kbuild kernel's symbol table resolves its kernel samples.
		[ "$profile" = 1 ] && [ -f "$(dirname "$k")/System.map" ] &&
			printf '%s\n' --profile-kallsyms /etc/mmbench/System.map
		[ ${#mmargs[@]} -gt 0 ] && printf '%s\n' "${mmargs[@]}"
		for m in vm=qemu "vm_accel=$a" "vm_nodes=$nodes" \
			"vm_mem_per_node_mb=$mem_mb" "vm_cpus=$cpus" \
			"vm_node_layout=$layout" "vm_disk_mb=$disk_mb" \
			"vm_swap_mb=$swap_mb" "vm_kernel=$k" "vm_entry=$ent" \
			"vm_kernel_package=$(cat "$kd/package" 2>/dev/null)" \
			"vm_append=${append# }" \
			"vm_qemu=$(qemu-system-x86_64 --version | head -n1)" \
			"host_kernel=$(uname -r)" "host_kernel_version=$(uname -v)" \
			"host_name=$(hostname)" \
			"host_cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"; do
			printf '%s\n' --meta "$m"
		done
	} >"$wd/args"
	# A kernel built by tools/kbuild has its manifest beside it.
	[ -f "$(dirname "$k")/manifest.csv" ] && echo "$(dirname "$k")/manifest.csv" >"$wd/kmanifest"
	cat >"$wd/vm.conf" <<-EOF
	VM_DISK_MB=$disk_mb
	VM_SWAP_MB=$swap_mb
	VM_FS=$vm_fs
	VM_HOSTNAME=$host
	VM_RUN_DIR=/results/run
	VM_BOOT_ATTEMPT=${attempt:-1}
	EOF
}

# The part of the initramfs that depends only on the kernel, mmbench and
# the host's programs is built once and cached under a key of their
# contents; a run appends its own small archive (suite, arguments, hooks).
base_initramfs()
{
	local kd=$1 key base m extra=() md

	md=$kd/lib/modules/$(cat "$kd/release")
	key=$({
		echo "$kd $(cat "$kd/release") ${mods[*]}"
		# which module tree, and its index's age (a re-run depmod)
		echo "modules: $(readlink -f "$md" 2>/dev/null || echo none)" \
			"$(stat -c %Y "$md/modules.dep" 2>/dev/null || echo none)"
		sha1sum "$mmbench_bin" "$VM_DIR"/{init,mkinitramfs,modules.list,lib.sh} \
			"$(command -v busybox)" "$(command -v mke2fs)" \
			$(ldd "$mmbench_bin" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }')
		[ -n "$perf_bin" ] && sha1sum "$perf_bin" $(ldd "$perf_bin" |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }')
	} | sha1sum | cut -c1-16)
	base=$(vm_cache_dir)/initramfs/$key.cpio
	if [ ! -f "$base" ]; then
		mkdir -p "$(dirname "$base")"
		for m in "${mods[@]}"; do
			extra+=(-m "$m")
		done
		# --profile: the host's perf with its libraries, as for mmbench.
		[ -n "$perf_bin" ] && extra+=(-b "$perf_bin=/usr/bin/perf")
		"$VM_DIR/mkinitramfs" -o "$base" -k "$kd" \
			-b "$mmbench_bin=/usr/bin/mmbench" "${extra[@]}" || return 1
		# Keep the six most recently used.
		ls -t "$(dirname "$base")"/*.cpio | tail -n +7 | xargs -r rm -f
	fi
	touch "$base"
	echo "$base"
}

build_initramfs()
{
	local wd=$1 kd=$2 base extra=()

	base=$(base_initramfs "$kd") || return 1
	[ -n "$hook_pre" ] && extra+=(-f "$hook_pre=/etc/mmbench/hook-pre")
	[ -n "$hook_post" ] && extra+=(-f "$hook_post=/etc/mmbench/hook-post")
	[ -f /etc/localtime ] && extra+=(-f "/etc/localtime=/etc/localtime")
	[ "$profile" = 1 ] && [ -f "$(dirname "$3")/System.map" ] &&
		extra+=(-f "$(dirname "$3")/System.map=/etc/mmbench/System.map")
	"$VM_DIR/mkinitramfs" --bare -o "$wd/run.cpio" \
		-f "$suite_file=/etc/mmbench/suite" \
		-f "$wd/args=/etc/mmbench/args" -f "$wd/vm.conf=/etc/mmbench/vm.conf" \
		"${extra[@]}" || return 1
	cat "$base" "$wd/run.cpio" >"$wd/initrd.cpio" || return 1
	chmod 755 "$wd/initrd.cpio"
}

# One CSV row of the arguments, quoted as mmbench writes rows (the row
# writer of the guest's own mmbench, which the host runs too).
csv_row()
{
	"$mmbench_bin" field --csv "$@"
}

# The host's facts about the run, for the record: always vm_status and the
# timings; the whole identity when the guest never wrote meta.csv.
host_meta()
{
	local dir=$1 wd=$2 rel=$3 label=$4 run_id=$5 st=$6 kv

	if [ ! -s "$dir/meta.csv" ]; then
		{
			"$mmbench_bin" field --header meta.csv
			csv_row schema "$("$mmbench_bin" field --schema)"
			csv_row run_id "$run_id"
			csv_row label "$label"
			csv_row kernel_release "$rel"
			awk 'prev == "--meta" { print } { prev = $0 }' "$wd/args" |
				while IFS= read -r kv; do
					csv_row "${kv%%=*}" "${kv#*=}"
				done
		} >>"$dir/meta.csv"
	fi
	echo "vm_status,$st" >>"$dir/meta.csv"
	echo "vm_boot_attempts,${vm_boot_attempts:-1}" >>"$dir/meta.csv"
	[ "$st" = interrupted ] && echo "interrupted,SIG$interrupted" >>"$dir/meta.csv"
	[ -f "$wd/timings" ] || : >"$wd/timings"
	# The kbuild manifest's rows are CSV already: copied whole, not parsed.
	if [ -s "$wd/kmanifest" ] && ! grep -q '^kbuild_request,' "$dir/meta.csv"; then
		tail -n +2 "$(cat "$wd/kmanifest")" >>"$dir/meta.csv"
	fi
	while IFS== read -r k v; do
		[ "$k" = accel ] && continue
		echo "vm_$k,$v" >>"$dir/meta.csv"
	done <"$wd/timings"
}

# The case the guest died in: started.csv (written before each case) has
# its row, cases.csv none. It gets a cases.csv row, status fail, so the
# record names the case that took the kernel down. duration_s runs from the
# case's start (the guest's clock, UTC) to the end of QEMU; after a
# --vm-idle-timeout that includes the silence. Prints "WORKLOAD [CASE]".
# The lab's run directory is always new (demux), so the guest's last
# started row is the one left over when started.csv has one row more.
close_unfinished()
{
	local dir=$1 wd=$2 why=$3 ns nc start t0 total dur="" what
	local f

	what="the guest died during this case"
	[ "$(cat "$wd/status" 2>/dev/null)" = interrupted ] &&
		what="the run was interrupted during this case"

	[ -s "$dir/started.csv" ] || return 0
	# rows, not lines: a quoted field may hold a line break
	ns=$("$mmbench_bin" field "$dir/started.csv" case | wc -l)
	nc=0
	[ -s "$dir/cases.csv" ] && nc=$("$mmbench_bin" field "$dir/cases.csv" case | wc -l)
	[ "$ns" -gt "$nc" ] || return 0
	# schema run_id label kernel workload case start_time, one a line
	mapfile -t f < <("$mmbench_bin" field --last --lines "$dir/started.csv" \
		schema run_id label kernel workload case start_time)
	[ "${#f[@]}" -eq 7 ] || return 0
	start=$(date -u -d "${f[6]}" +%s 2>/dev/null)
	t0=$(sed -n 's/^qemu_start_epoch_s=//p' "$wd/timings")
	total=$(sed -n 's/^total_s=//p' "$wd/timings")
	if [ -n "$start" ] && [ -n "$t0" ] && [ -n "$total" ]; then
		dur=$(awk -v s="$start" -v a="$t0" -v b="$total" \
			'BEGIN { d = a + b - s; if (d >= 0) printf "%.3f", d }')
	fi
	[ -s "$dir/cases.csv" ] || "$mmbench_bin" field --header cases.csv >"$dir/cases.csv"
	# cases.csv's row: started.csv's first six fields, then the outcome,
	# then empty fields up to the header's columns (the header has no
	# quoted comma; an older guest's has fewer columns than this mmbench's)
	local row=("${f[@]:0:6}" fail "$what: $why" 0 "$dur") ncols
	ncols=$(head -n1 "$dir/cases.csv" | awk -F, '{ print NF }')
	while [ "${#row[@]}" -lt "$ncols" ]; do row+=(""); done
	csv_row "${row[@]}" >>"$dir/cases.csv"
	printf '%s [%s]\n' "${f[4]}" "${f[5]}"
}

# Record a failed guest in run.log, and tell the user: what happened and
# the console's tail (the guest's mmbench messages and kernel oopses).
log_failure()
{
	local dir=$1 wd=$2 why=$3 con=$2/console.log

	# after a capture (tools/vm/capture), the lines before its dump
	[ -f "$wd/console.before" ] && con=$wd/console.before
	{
		echo "vm: FAILED: $why"
		echo "vm: last console lines:"
		tr -d '\r' <"$con" | tail -n 20 | sed 's/^/vm: | /'
	} >>"$dir/run.log"
	vm_log "FAILED: $why; last console lines:"
	tr -d '\r' <"$con" | tail -n 20 | sed 's/^/  | /' >&2
}

# Bring the results home and judge the run; prints the exit status.
collect_run()
{
	local wd=$1 rel=$2 label=$3 st out dir gexit rc why kase

	st=$(cat "$wd/status" 2>/dev/null || echo qemu-error)
	vm_log "$rel: $(awk -F= '$1 != "accel" && $1 !~ /epoch/ { printf "%s%s %ss", s, $1, $2; s = ", " }' \
		"$wd/timings" | sed 's/_s / /g'); $st"
	run_why="its results channel could not be read back (tools/vm/demux)"
	out=$("$VM_DIR/demux" "$wd/mirror.out" "$root" "${label:-$rel}" \
		"$(date +%Y%m%d-%H%M%S)-$(hostname)") || return 1
	dir=$(sed -n 's/^dir=//p' <<<"$out")
	gexit=$(sed -n 's/^exit=//p' <<<"$out")
	# --profile: raw perf data came home as base64 lines; checked, decoded.
	ls "$dir"/profile.*.b64 >/dev/null 2>&1 &&
		{ "$VM_TOP/tools/mmcompare/mmprofile" --unpack "$dir" >>"$dir/run.log" 2>&1 ||
			vm_log "warning: some raw profile data could not be unpacked (run.log)"; }
	cp "$wd/console.log" "$dir/vm-console.log"
	# a guest that stopped answering: its state (tools/vm/capture)
	[ -s "$wd/hang.txt" ] && cp "$wd/hang.txt" "$dir/vm-hang.txt"
	host_meta "$dir" "$wd" "$rel" "${label:-$rel}" "$(basename "$dir")" "$st"
	run_dir=$dir run_why=
	if [ "$st" != ok ]; then
		why="$st: $(cat "$wd/failure" 2>/dev/null)"
		kase=$(close_unfinished "$dir" "$wd" "$why")
		[ -n "$kase" ] && why="$why; during the case $kase (cases.csv)"
		[ -s "$dir/vm-hang.txt" ] && why="$why; its state in vm-hang.txt"
		log_failure "$dir" "$wd" "$why"
		run_why="the guest failed ($why)"
		rc=1
	else
		rc=$gexit
		[[ $rc =~ ^[0-9]+$ ]] || rc=1
		case "$rc" in
		0) echo "vm: guest $rel ran the suite and powered off" >>"$dir/run.log" ;;
		4) echo "vm: every case was skipped in the guest (cases.csv)" >>"$dir/run.log" ;;
		*) log_failure "$dir" "$wd" "mmbench in the guest exited $rc (see cases.csv)"
		   run_why="mmbench in the guest exited $rc (see cases.csv)" ;;
		esac
	fi
	# One kernel: the run's summary. A pair: its case outcomes, prefixed
	# with the run's label; the whole summary with --verbose, and always
	# by `mmbench summary DIR` (the verdict is what a pair prints).
	if [ -s "$dir/results.csv" ] || [ -s "$dir/cases.csv" ]; then
		if [ "${lab_quiet:-0}" = 1 ]; then
			"$mmbench_bin" summary --cases "$dir" | sed "s|^|${label:-$rel}: |"
		else
			"$mmbench_bin" summary "$dir"
		fi
	fi
	# --precision: each case's iterations and how they stopped (a limit
	# before P is flagged)
	[ -n "$front_precision" ] && [ -s "$dir/cases.csv" ] &&
		"$mmbench_bin" precision "$dir" | sed -n '1,/^$/p'
	return "$rc"
}

# mark_retried DIR WORKLOAD CASE NOTE: NOTE is added to the reason of the
# case's row in DIR/cases.csv (rows rewritten with the guest's mmbench's
# CSV reader and writer: the columns and the other fields stay as they
# were; a line break inside a field would become a blank).
mark_retried()
{
	local dir=$1 wl=$2 c=$3 note=$4 cols f row i n iw ic ir tmp

	[ -s "$dir/cases.csv" ] || return 0
	IFS=, read -r -a cols < <(head -n1 "$dir/cases.csv")
	n=${#cols[@]}
	for i in "${!cols[@]}"; do
		case "${cols[$i]}" in workload) iw=$i ;; case) ic=$i ;; reason) ir=$i ;; esac
	done
	[ -n "${iw:-}" ] && [ -n "${ic:-}" ] && [ -n "${ir:-}" ] || return 1
	mapfile -t f < <("$mmbench_bin" field --lines "$dir/cases.csv" "${cols[@]}")
	[ $((${#f[@]} % n)) = 0 ] || return 1
	tmp=$dir/cases.csv.retry
	head -n1 "$dir/cases.csv" >"$tmp" || return 1
	for ((i = 0; i < ${#f[@]}; i += n)); do
		row=("${f[@]:i:n}")
		[ "${row[iw]}" = "$wl" ] && [ "${row[ic]}" = "$c" ] &&
			row[ir]="${row[ir]:+${row[ir]}; }$note"
		csv_row "${row[@]}" >>"$tmp" || return 1
	done
	mv "$tmp" "$dir/cases.csv"
}

# first_guest WD REL LABEL WHY: the record of a guest that died of the
# emulator's fault (a retry follows) into WD/first-guest: its rows, the
# case it died in (close_unfinished's cases.csv row), its console and its
# state. Prints "WORKLOAD [CASE]" when it died in a case.
first_guest()
{
	local wd=$1 rel=$2 label=$3 why=$4 out d

	out=$("$VM_DIR/demux" "$wd/mirror.out" "$wd/home" "${label:-$rel}" first) || return 0
	d=$(sed -n 's/^dir=//p' <<<"$out")
	[ -d "$d" ] || return 0
	cp "$wd/console.log" "$d/vm-console.log" 2>/dev/null
	[ -s "$wd/hang.txt" ] && cp "$wd/hang.txt" "$d/vm-hang.txt"
	echo "vm_status,$(cat "$wd/status")" >>"$d/meta.csv"
	mv "$d" "$wd/first-guest" || return 0
	close_unfinished "$wd/first-guest" "$wd" "$why"
}

# After a retry: the first guest's record goes into the run directory
# (first-guest/), the case it died in says so in cases.csv's reason, and
# meta.csv names it (vm_retried_case, vm_retry_reason).
retry_record()
{
	local dir=$1 fwd=$2 kase=$3 why=$4 wl c note

	[ -d "$fwd/first-guest" ] && mv "$fwd/first-guest" "$dir/first-guest"
	note="run again in a fresh guest (boot 2 of 2): the first guest died during this case: $why (its record: first-guest/)"
	{
		csv_row vm_retried_case "$kase"
		csv_row vm_retry_reason "$why"
	} >>"$dir/meta.csv"
	echo "vm: $note" >>"$dir/run.log"
	[ -n "$kase" ] || return 0
	wl=${kase%% \[*} c=${kase#* \[} c=${c%]}
	mark_retried "$dir" "$wl" "$c" "$note" ||
		vm_log "warning: $dir/cases.csv: the retried case's row could not be marked"
}

# retriable WD: the guest died of what the emulator, not the kernel, does
# (it went silent: --vm-idle-timeout; QEMU itself failed) after mmbench
# started. A panic, or the run's own deadline, is the kernel's result.
retriable()
{
	case "$(cat "$1/status" 2>/dev/null)" in
	idle-timeout|qemu-error) grep -q '^@@MMVM start' "$1/mirror.out" 2>/dev/null ;;
	*) return 1 ;;
	esac
}

# run_one KERNEL LABEL: one guest; sets run_dir (empty when no run
# directory came back: the kernel could not be fetched or booted) and
# run_why (why the run failed, empty when it did not).
run_one()
{
	local k=$1 label=$2 kd rel wd a rc img ent

	run_dir= run_why="the kernel $k could not be fetched or read (see above)"
	kd=$(resolve_kernel "$k") || return 1
	rel=$(cat "$kd/release")
	a=$(pick_accel "$kd/vmlinuz")
	read -r img ent < <(boot_image "$kd")
	[ -n "$img" ] || return 1
	local attempt=1 st early why fwd= fkase= fwhy=
	while :; do
		run_why="its initramfs could not be built (see above)"
		wd=$(mktemp -d "${TMPDIR:-/tmp}/mmbench-vm.XXXXXX") || return 1
		write_guest_config "$wd" "$kd" "$k" "$label" "$a" "$ent"
		build_initramfs "$wd" "$kd" "$k" || { rm -rf "$wd"; return 1; }
		vm_log "booting $rel ($k): $nodes nodes x ${mem_mb} MiB, $cpus CPUs, $a, $ent entry; suite $suite_file"
		# In the background and waited for: a signal to the lab is handled
		# at once (bash runs a trap only between commands, and a
		# foreground boot would make it wait for the whole guest run).
		"$VM_DIR/boot" -k "$img" -i "$wd/initrd.cpio" -d "$wd" \
			--nodes "$nodes" --mem-per-node "$mem_mb" --cpus "$cpus" \
			--append "${append# }" --accel "$a" --timeout "$timeout" \
			--boot-timeout "$boot_timeout" --off-timeout "$off_timeout" \
			--idle-timeout "$idle_timeout" --quiet --progress &
		boot_pid=$!
		while kill -0 "$boot_pid" 2>/dev/null; do
			wait "$boot_pid"
			[ -n "$interrupted" ] && stop_guest
		done
		boot_pid=
		# A guest that panicked or never reached its init before mmbench
		# started measured nothing: it is booted once more (the same
		# kernel and initramfs), said here and in meta.csv
		# (vm_boot_attempts). A kernel that fails that way twice is a
		# failed run as before.
		st=$(cat "$wd/status" 2>/dev/null || echo qemu-error)
		early=0
		case "$st" in
		panic|boot-timeout) grep -q '^@@MMVM start' "$wd/mirror.out" 2>/dev/null || early=1 ;;
		esac
		[ -z "$interrupted" ] && [ "$attempt" -lt 2 ] || break
		if [ "$early" = 1 ]; then
			why=$(grep -m1 -o 'Kernel panic - not syncing: .*' "$wd/console.log" 2>/dev/null | cut -c1-120)
			vm_log "the guest ended ($st) before mmbench started${why:+: $why}; booting it again (attempt 2 of 2)"
			rm -rf "$wd"
		elif retriable "$wd"; then
			# The emulator's fault (issue: a TCG guest that went
			# silent, a QEMU crash): the whole suite once more in
			# a fresh guest, so that one run directory is one boot;
			# the first guest's record is kept (retry_record).
			fwhy="$st: $(cat "$wd/failure" 2>/dev/null)"
			fkase=$(first_guest "$wd" "$rel" "$label" "$fwhy")
			fwd=$wd
			vm_log "the guest failed ($fwhy)${fkase:+ during the case $fkase}; running the suite again in a fresh guest (attempt 2 of 2)"
		else
			break
		fi
		attempt=$((attempt + 1))
	done
	vm_boot_attempts=$attempt
	if [ -n "$interrupted" ]; then
		echo interrupted >"$wd/status"
		echo "the lab was stopped by SIG$interrupted" >"$wd/failure"
	fi
	collect_run "$wd" "$rel" "$label"
	rc=$?
	[ -n "$fwd" ] && [ -n "$run_dir" ] && retry_record "$run_dir" "$fwd" "$fkase" "$fwhy"
	if [ "$keep" = 1 ]; then
		vm_log "work directory kept: $wd${fwd:+ (of the first guest: $fwd)}"
	else
		rm -rf "$wd" ${fwd:+"$fwd"}
	fi
	return "$rc"
}

. "$VM_DIR/lab-runs.sh"
