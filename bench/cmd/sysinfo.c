// SPDX-License-Identifier: GPL-2.0
/* mmbench sysinfo [-o CSV_FILE] [-x TOPOLOGY_XML]: the machine's facts. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "core.h"

int cmd_sysinfo(int argc, char **argv)
{
	const char *out = NULL, *xml = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(argv[i], "-x") == 0 && i + 1 < argc) {
			xml = argv[++i];
		} else {
			fprintf(stderr, "usage: mmbench sysinfo [-o CSV_FILE] [-x TOPOLOGY_XML]\n");
			return MM_USAGE;
		}
	}
	if (out && !freopen(out, "w", stdout)) {
		fprintf(stderr, "mmbench sysinfo: -o '%s': %s\n", out, strerror(errno));
		return MM_FAIL;
	}
	if (xml && mm_topology_xml(xml) < 0) {
		fprintf(stderr, "mmbench sysinfo: -x '%s': hwloc could not write it\n", xml);
		return MM_FAIL;
	}
	return mm_close_stdout("sysinfo", out ? out : "standard output",
			    mm_sysinfo_write("-", argc, argv, NULL, 0) < 0 ? MM_FAIL : MM_PASS);
}
