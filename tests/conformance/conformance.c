// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: drives user_events through the real ABI (user_events_data,
 * tracefs files, dynamic_events) at a tracefs root and prints, one fact per
 * line, everything it observes, so the reference kernel and usereventsd can
 * be compared with diff.  Lines starting with '~' vary between runs.
 * The output format is described in tests/conformance/README.md.
 */
#include "conformance.h"

static void usage(void)
{
	fprintf(stderr, "usage: conformance [-t TRACEFS] [-f] [-s SECTION[,SECTION...]]\n"
			"  -t  tracefs root (default /sys/kernel/tracing)\n"
			"  -f  print tracefs facts instead of the conformance cases\n"
			"  -s  run only these sections: env parse match reg unreg enable del multi\n"
			"      ioctl pay wr dyn status filter marker trigger mem\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct utsname u;
	bool facts = false;
	int opt;

	while ((opt = getopt(argc, argv, "t:fs:h")) != -1) {
		switch (opt) {
		case 't':
			root = optarg;
			break;
		case 'f':
			facts = true;
			break;
		case 's':
			only_sections = optarg;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	uname(&u);
	printf("~uname-r %s\n", u.release);
	printf("# userevents conformance output (%s); lines starting with '~' vary\n",
	       facts ? "facts" : "cases");
	ctl_fd = open_data();
	clear_trace();

	if (facts) {
		printf("# What usereventsd reproduces besides the events themselves: modes of the\n"
		       "# tracefs files, their contents, the trace file's header and options, README.\n"
		       "# Line kinds (tests/conformance/README.md): stat ID PATH TYPE mode= size=;\n"
		       "# value ID PATH = \"TEXT\"; text ID PATH, then \"| \" lines, then end;\n"
		       "# fwrite ID PATH \"TEXT\" => RESULT; write/trace as in refkernel.out.\n");
		run_facts();
		printf("\n# done\n");
		return 0;
	}
	if (section("env"))
		sec_env();
	if (section("parse"))
		sec_parse();
	if (section("match"))
		sec_match();
	if (section("reg"))
		sec_reg();
	if (section("unreg"))
		sec_unreg();
	if (section("enable"))
		sec_enable();
	if (section("del"))
		sec_del();
	if (section("multi"))
		sec_multi();
	if (section("ioctl"))
		sec_ioctl();
	if (section("pay"))
		sec_pay();
	if (section("wr"))
		sec_wr();
	if (section("dyn"))
		sec_dyn();
	if (section("status"))
		sec_status();
	if (section("filter"))
		sec_filter();
	if (section("marker"))
		sec_marker();
	if (section("trigger"))
		sec_trigger();
	if (section("mem"))
		sec_mem();
	printf("\n# done\n");
	return 0;
}
