# shellcheck shell=bash
# tools/lava/lava: the job definition and its artifacts (sourced; the
# options are checked into variables by tools/lava/lava).

# The guest's mmbench: $MMBENCH, else bench/mmbench, built when missing.
mmbench_binary()
{
	local log

	if [ -n "${MMBENCH:-}" ]; then
		[ -x "$MMBENCH" ] || vm_usage_die "MMBENCH=$MMBENCH: not an executable"
		echo "$MMBENCH"
		return
	fi
	log=$wd/build.log
	front_build_log=$log front_build -q bench/mmbench ||
		{ tail -n 20 "$log" >&2; vm_die "building bench/mmbench failed"; }
	echo "$VM_TOP/bench/mmbench"
}

# The kernel directory (vmlinuz, release, modules) for K: the VM lab's own
# resolver (tools/vm/lab-run.sh: Debian releases fetched and cached, a
# bzImage with its /lib/modules tree).
resolve()
{
	local refresh=() moddir=

	# shellcheck source=../vm/lab-run.sh
	. "$VM_DIR/lab-run.sh"
	resolve_kernel "$1"
}

# Kernel and initramfs for one QEMU job, in the artifact directory under
# names that hold their content's hash (so a queued job's files are never
# replaced under it): the VM lab's initramfs (busybox, mmbench and its
# libraries, the modules) with this directory's guest-init as /init, the
# e1000 driver for the network LAVA's overlay comes over, and vm.conf.
# Sets art_kernel, art_initrd (file names), art_rel.
make_artifacts()
{
	local kd=$1 mm=$2 key base ksum

	art_rel=$(cat "$kd/release")
	mkdir -p "$artifact_dir" || vm_die "cannot create $artifact_dir"
	ksum=$(sha1sum "$kd/vmlinuz" | cut -c1-16)
	art_kernel=vmlinuz-$art_rel-$ksum
	[ -f "$artifact_dir/$art_kernel" ] ||
		{ cp "$kd/vmlinuz" "$artifact_dir/$art_kernel.tmp" &&
			mv "$artifact_dir/$art_kernel.tmp" "$artifact_dir/$art_kernel"; } ||
		vm_die "cannot copy the kernel into $artifact_dir"
	key=$({
		echo "$kd $art_rel disk=$disk_mb"
		sha1sum "$mm" "$LAVA_DIR/guest-init" "$VM_DIR"/{mkinitramfs,modules.list,lib.sh} \
			"$(command -v busybox)" "$(command -v mke2fs || echo /sbin/mke2fs)" \
			$(ldd "$mm" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }')
	} | sha1sum | cut -c1-16)
	art_initrd=initrd-$art_rel-$key.cpio
	touch "$artifact_dir/$art_kernel"
	if [ -f "$artifact_dir/$art_initrd" ]; then
		touch "$artifact_dir/$art_initrd"
		return 0
	fi
	base=$wd/base.cpio
	"$VM_DIR/mkinitramfs" -o "$base" -k "$kd" -b "$mm=/usr/bin/mmbench" -m e1000 ||
		vm_die "building the guest's initramfs failed"
	printf 'VM_DISK_MB=%s\nVM_HOSTNAME=mmbench-lava\n' "$disk_mb" >"$wd/vm.conf"
	"$VM_DIR/mkinitramfs" --bare -o "$wd/run.cpio" -f "$LAVA_DIR/guest-init=/init" \
		-f "$wd/vm.conf=/etc/mmbench/vm.conf" || vm_die "building the guest's initramfs failed"
	cat "$base" "$wd/run.cpio" >"$artifact_dir/$art_initrd.tmp" &&
		mv "$artifact_dir/$art_initrd.tmp" "$artifact_dir/$art_initrd" ||
		vm_die "cannot write $artifact_dir/$art_initrd"
	rm -f "$base" "$wd/run.cpio"
	# Keep the twelve most recently used of each kind.
	ls -t "$artifact_dir"/initrd-*.cpio 2>/dev/null | tail -n +13 | xargs -r rm -f
	ls -t "$artifact_dir"/vmlinuz-* 2>/dev/null | tail -n +13 | xargs -r rm -f
}

b64() { base64 -w0 "$1"; }

# The test action: mmbench's runner, the suite and the arguments travel in
# the job as base64 (nothing in them is ever parsed by a shell), then the
# runner runs (tools/lava/guest-run).
test_action()
{
	local results=$1 env=

	[ -n "$bundle_url" ] && env="MMBENCH_BUNDLE_URL=$bundle_url "
	cat <<-EOF
	- test:
	    timeout: {minutes: $job_timeout}
	    definitions:
	    - from: inline
	      name: mmbench
	      path: inline/mmbench.yaml
	      repository:
	        metadata:
	          format: Lava-Test Test Definition 1.0
	          name: mmbench
	          description: 'mmbench suite $suite_name'
	        run:
	          steps:
	          - 'echo $(b64 "$LAVA_DIR/guest-run") | base64 -d >/tmp/mmlava-run.sh'
	          - 'echo $(b64 "$suite_file") | base64 -d >/tmp/mmlava-suite'
	          - 'echo $(b64 "$wd/args") | base64 -d >/tmp/mmlava-args'
	          - '${env}sh /tmp/mmlava-run.sh /tmp/mmlava-suite /tmp/mmlava-args $results'
	EOF
}

# make_job I FILE: the job for kernel I.
make_job()
{
	local i=$1 f=$2 k=${kernels[$1]} label=${labels[$1]:-} kd mm n layout="" \
		total conn t kname

	suite_name=$(basename "$suite_file" | tr -c 'A-Za-z0-9_.\n-' '_')
	kname=$(basename "$k" | tr -c 'A-Za-z0-9_.\n-' '_')
	{
		[ -n "$label" ] && printf '%s\n' --label "$label"
		[ ${#mmargs[@]} -gt 0 ] && printf '%s\n' "${mmargs[@]}"
	} >"$wd/args"
	# The connection may stay silent while a case runs, up to its timeout.
	conn=$(((case_timeout + 300 + 59) / 60))
	{
		echo "# mmbench (tools/lava/lava) suite $suite_name"
		echo "device_type: $device_type"
		echo "job_name: 'mmbench $suite_name on $kname${label:+ ($label)}'"
		echo "priority: $priority"
		echo "visibility: public"
		if [ -n "$tags" ]; then
			echo "tags:"
			for t in ${tags//,/ }; do echo "- $t"; done
		fi
		echo "timeouts:"
		echo "  job: {minutes: $job_timeout}"
		echo "  action: {minutes: $job_timeout}"
		echo "  connection: {minutes: $conn}"
		echo "metadata:"
		echo "  mmbench.suite: '$suite_name'"
		echo "  mmbench.kernel: '$kname'"
		[ -n "$label" ] && echo "  mmbench.label: '$label'"
	} >"$f"
	if [ -n "$host_actions" ]; then
		{
			echo "actions:"
			cat "$host_actions"
			test_action /var/tmp/mmbench-lava
		} >>"$f"
		return 0
	fi

	mm=$(mmbench_binary) || return 1
	kd=$(resolve "$k") || { vm_log "the kernel $k could not be fetched or read"; return 1; }
	make_artifacts "$kd" "$mm"
	for ((n = 0; n < nodes; n++)); do
		layout+="${layout:+;}$n:cpus=$((n * cpus / nodes))-$(((n + 1) * cpus / nodes - 1)),mem=${mem_mb}M"
	done
	for m in vm=qemu "vm_nodes=$nodes" "vm_mem_per_node_mb=$mem_mb" "vm_cpus=$cpus" \
		"vm_node_layout=$layout" "vm_disk_mb=$disk_mb" vm_swap_mb=0 "vm_kernel=$k" \
		"vm_kernel_package=$(cat "$kd/package" 2>/dev/null)" "vm_append=$append" \
		vm_entry=bzimage; do
		printf '%s\n' --meta "$m"
	done >>"$wd/args"
	total=$((nodes * mem_mb))
	{
		echo "  mmbench.kernel_release: '$art_rel'"
		echo "context:"
		echo "  arch: amd64"
		echo "  memory: $total"
		# e1000: one module to load (virtio-net needs eight, ~0.5 s each
		# of emulated signature checks under TCG)
		echo "  model: model=e1000"
		echo "  extra_options:"
		echo "  - -smp $cpus"
		# a panic (panic=-1) ends QEMU instead of rebooting the guest
		echo "  - -no-reboot"
		for ((n = 0; n < nodes; n++)); do
			echo "  - -object memory-backend-ram,id=m$n,size=${mem_mb}M"
			echo "  - -numa node,nodeid=$n,cpus=$((n * cpus / nodes))-$(((n + 1) * cpus / nodes - 1)),memdev=m$n"
		done
		cat <<-EOF
		actions:
		- deploy:
		    to: downloads
		    timeout: {minutes: 20}
		    images:
		      kernel:
		        image_arg: '-kernel {kernel} -append "console=ttyS0,115200 panic=-1 numa_balancing=disable no_timer_check loglevel=4${append:+ $append}"'
		        url: '$artifact_url/$art_kernel'
		      initrd:
		        image_arg: '-initrd {initrd}'
		        url: '$artifact_url/$art_initrd'
		- boot:
		    method: qemu
		    media: tmpfs
		    timeout: {minutes: 10}
		    prompts: ['mmbench-lava# ']
		    transfer_overlay:
		      download_command: wget -q
		      unpack_command: tar -C / -xzf
		EOF
		test_action /results
	} >>"$f"
}

# Submit one job per kernel; ids in ids[]. Both jobs of a pair are
# submitted before either is waited for: LAVA runs them side by side on
# two devices.
submit_all()
{
	local i id out

	for i in "${!kernels[@]}"; do
		make_job "$i" "$wd/job-$i.yaml" || return 1
		lava_cli jobs validate "$wd/job-$i.yaml" >"$wd/validate.out" 2>&1 ||
			{ vm_log "LAVA rejects the job for ${kernels[$i]}: $(tail -n 3 "$wd/validate.out")"; return 1; }
		out=$(lava_cli jobs submit "$wd/job-$i.yaml" 2>&1)
		id=$(tail -n 1 <<<"$out")
		[[ $id =~ ^[0-9]+$ ]] || { vm_log "submitting the job for ${kernels[$i]} failed: $out"; return 1; }
		vm_log "submitted job $id: ${kernels[$i]} ($suite_name on $device_type${tags:+, tags $tags})"
		ids+=("$id")
	done
}

# A tarball a real host's job can fetch (--bundle-url): mmbench, the shared
# libraries and the loader it runs with here, and mmbench-run, which starts
# it through that loader.
make_bundle()
{
	local out=$1 mm d lib ld

	mm=$(mmbench_binary) || return 1
	d=$wd/bundle
	mkdir -p "$d/lib"
	cp "$mm" "$d/mmbench"
	ldd "$mm" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { print $i; break } }' |
		while read -r lib; do cp -L "$lib" "$d/lib/"; done
	ld=$(ldd "$mm" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }' | head -n1)
	[ -n "$ld" ] || vm_die "no dynamic loader in ldd $mm"
	cat >"$d/mmbench-run" <<-EOF
	#!/bin/sh
	d=\$(cd "\$(dirname "\$0")" && pwd)
	exec "\$d/lib/$(basename "$ld")" --library-path "\$d/lib" "\$d/mmbench" "\$@"
	EOF
	chmod 755 "$d/mmbench-run"
	tar -C "$d" -czf "$out" . || vm_die "cannot write $out"
	vm_log "bundle: $out (mmbench and $(ls "$d/lib" | wc -l) libraries)"
}
