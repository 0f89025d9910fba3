# shellcheck shell=bash
# tools/nightly, part: the lock (one night at a time per user).
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- lock

# The lock is a directory that only this user can open: owned by us, mode
# 700, not a symbolic link. flock(2) on it needs no file to be written or
# truncated, nothing another user plants can redirect a write, and no
# other user can open it to hold the lock. Root's default lies in /run
# (root's own); another user's in $XDG_RUNTIME_DIR, else in /tmp under a
# name with the uid (refused, loudly, when someone else made it first).
lock_path() {
	lock=${cfg[lock]}
	if [ -z "$lock" ]; then
		if [ "$EUID" = 0 ] && [ -d /run ] && [ -w /run ]; then
			lock=/run/mmbench-nightly
		elif [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ] && [ -w "$XDG_RUNTIME_DIR" ]; then
			lock=$XDG_RUNTIME_DIR/mmbench-nightly
		else
			lock=${TMPDIR:-/tmp}/mmbench-nightly-$EUID
		fi
	else
		check_no_dotdot lock
		[[ $lock == /* ]] || lock=$confdir/$lock
	fi
}

# Why $lock cannot be this user's lock; nothing when it can (or does not
# exist yet and its directory does).
lock_problem() {
	local own mode
	local fs
	fs=$(fs_of "$lock")
	if [[ $fs =~ $pseudo_fs_re ]]; then
		echo "on a $fs file system (the kernel's own view): the lock is a directory on a real one"
	elif [ -L "$lock" ]; then
		echo "a symbolic link: the lock must be a directory of its own"
	elif [ ! -e "$lock" ]; then
		[ -d "$(dirname -- "$lock")" ] || echo "its directory $(dirname -- "$lock") does not exist"
	elif [ ! -d "$lock" ]; then
		echo "not a directory: the lock is a directory that only this user can open (a file, such as the config itself, is never opened as the lock)"
	else
		read -r own mode < <(stat -c '%u %a' -- "$lock")
		if [ "$own" != "$EUID" ]; then
			echo "owned by uid $own, not by this user (uid $EUID)"
		elif [ $((8#$mode & 8#077)) -ne 0 ]; then
			echo "mode $mode: other users can open it (and hold the lock): want 700"
		fi
	fi
}

# A lock that cannot be used: a config error when the config named it,
# else a failed night (the systemd unit and cron see exit 1).
lock_die() {
	[ -n "${cfg_at[lock]:-}" ] && die 2 "$config:${cfg_at[lock]}: lock = '$(shown "${cfg[lock]}")': $lock: $1"
	die 1 "the lock $lock: $1; not starting"
}

# The processes that hold the lock open: "pid N (comm, uid U, since T)",
# oldest first, one per line. Read from /proc with our own descriptor
# closed, with builtins where it can: the machine may be busy.
lock_holders() {
	local real=$1 p k v uid comm cmd st f btime=0 hz TZ=UTC
	while read -r k v; do [ "$k" = btime ] && { btime=$v; break; }; done </proc/stat
	hz=$(getconf CLK_TCK)
	for p in $(find /proc/[0-9]*/fd -maxdepth 1 -type l -printf '%h %l\n' 2>/dev/null |
		awk -v l="$real" 'substr($0, index($0, " ") + 1) == l { split($1, f, "/"); print f[3] }' |
		sort -un); do
		{ mapfile -d '' -t cmd <"/proc/$p/cmdline" && read -r st <"/proc/$p/stat"; } 2>/dev/null ||
			continue
		comm="${cmd[*]:0:3}"
		[ ${#comm} -le 80 ] || comm="${comm:0:80}..."
		uid=?
		while read -r k v _; do [ "$k" = Uid: ] && { uid=$v; break; }; done <"/proc/$p/status"
		read -r -a f <<<"${st##*) }"	# after "pid (comm) ": starttime is the 20th
		printf '%s pid %s (%s, uid %s, since %(%Y-%m-%dT%H:%M:%SZ)T)\n' "${f[19]}" "$p" \
			"${comm//[^[:alnum:] ._:+\/=-]/_}" "$uid" $((btime + f[19] / hz))
	done | sort -n | cut -d' ' -f2-
}

take_lock() {
	local why real holders i
	why=$(lock_problem)
	[ -z "$why" ] || lock_die "$why"
	# mkdir fails when the name exists, link or not: whoever made it
	# first, the checks below decide.
	[ -e "$lock" ] || mkdir -m 700 -- "$lock" 2>/dev/null || [ -e "$lock" ] ||
		lock_die "cannot create it"
	why=$(lock_problem)
	[ -z "$why" ] || lock_die "$why"
	exec 9<"$lock" || lock_die "cannot open it"
	# The directory opened is the one checked, not a link put there since.
	[ "$(stat -L -c '%d:%i' /proc/self/fd/9)" = "$(stat -c '%d:%i' -- "$lock")" ] &&
		why=$(lock_problem) && [ -z "$why" ] || lock_die "it changed while it was opened${why:+: $why}"
	real=$(readlink /proc/self/fd/9)
	for i in 1 2 3; do
		flock -n 9 && return 0
		exec 9<&-
		holders=$(lock_holders "$real")
		if [ -n "$holders" ] && ! grep -qv " uid $EUID, " <<<"$holders"; then
			say "nightly: another nightly run holds $lock ($(head -n 3 <<<"$holders" | paste -sd';' | sed 's/;/; /g')); not starting"
			exit 75
		fi
		if [ -n "$holders" ]; then
			die 1 "the lock $lock is held by a process of another user ($(grep -v " uid $EUID, " <<<"$holders" | head -n 1)); not starting"
		fi
		# Held, by nobody this user can see (or the holder just ended):
		# try again.
		exec 9<"$lock" && [ "$(stat -L -c '%d:%i' /proc/self/fd/9)" = "$(stat -c '%d:%i' -- "$lock")" ] ||
			lock_die "it changed while it was opened"
	done
	die 1 "the lock $lock is held by a process this user cannot see (another user's?); not starting"
}
