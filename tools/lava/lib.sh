# shellcheck shell=bash
# Shared helpers for tools/lava (sourced, bash). Built on the VM lab's
# library (tools/vm/lib.sh: vm_log, vm_die, vm_usage_die, vm_size_mb,
# vm_cache_dir, vm_help). Exit codes follow mmbench: 0 pass, 1 fail,
# 2 usage/bad input, 4 skip.

LAVA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LAVA_DIR/../vm/lib.sh"

# Debian's LAVA, its postinst and lavacli are Python programs of Debian's
# python3: they must find /usr/bin/python3 first, not another python3 that
# happens to be first on PATH (otherwise: "No module named django").
LAVA_PATH=/usr/sbin:/usr/bin:/sbin:/bin
lava_sys() { env PATH="$LAVA_PATH" "$@"; }

# The local instance's state (tools/lava/instance): pid files, logs, the
# lavacli identity (a token: mode 600), the ports.
lava_state_dir() { echo "${MMBENCH_LAVA_STATE:-/var/lib/mmbench-lava}"; }

# lavacli against the chosen server. The identity comes, in this order,
# from --identity NAME (the user's own lavacli.yaml), from --uri URI, or
# from the local instance's private lavacli.yaml (its token never shows up
# on a command line).
LAVA_IDENTITY= LAVA_URI=
lava_cli()
{
	local st

	if [ -n "$LAVA_URI" ]; then
		lava_sys lavacli --uri "$LAVA_URI" "$@"
	elif [ -n "$LAVA_IDENTITY" ]; then
		lava_sys lavacli --identity "$LAVA_IDENTITY" "$@"
	else
		st=$(lava_state_dir)
		[ -f "$st/config/lavacli.yaml" ] || {
			vm_log "no LAVA server: give --identity NAME or --uri URI, or start the local instance (tools/lava/instance up)"
			return 2
		}
		lava_sys env XDG_CONFIG_HOME="$st/config" lavacli --identity mmbench "$@"
	fi
}

# A value of a "key: value" line in lavacli's YAML output.
lava_yaml_get() { awk -v k="$1" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }'; }

# Safe names: what may become a directory, a device name, a label.
lava_safe_name() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.:+-]*$ ]] && [[ $1 != *..* ]]; }
