// SPDX-License-Identifier: GPL-2.0-or-later
/* test_main.c - runs every group; exit status is the number of failures. */
#include "testutil.h"

int main(void)
{
	int failed = 0;

	failed += run_parse_tests();
	failed += run_malformed_tests();
	failed += run_cgroup_tests();
	failed += run_install_tests();
	failed += run_sandbox_tests();
	failed += run_cli_tests();
	failed += run_hardening_tests();
	failed += run_systemd_tests();
	return failed ? 1 : 0;
}
