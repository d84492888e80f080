// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sandbox-probe.c - the hook's own sandbox_apply() on a real kernel, and
 * what it still lets through.  Built with the production flags from the
 * production sandbox.c; run as root in the guest by runc-check.sh.
 *
 *   sandbox-probe CGROUP_DIR OUTSIDE_DIR CONFIG_FILE
 *
 * CGROUP_DIR is a cgroup beneath /sys/fs/cgroup, OUTSIDE_DIR a directory on
 * another filesystem holding a file `victim`.  Both directories are given
 * to the sandbox as write dirs, so seccomp lets a write open relative to
 * either through: only Landlock stands between the hook and OUTSIDE_DIR.
 * Prints one "CHECK RESULT" line per attempt (RESULT is OK or the errno
 * name) and "landlock_abi N"; runc-check.sh judges them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "sandbox.h"

static void report(const char *check, int fd)
{
	printf("%s %s\n", check, fd >= 0 ? "OK" : errno == EACCES ? "EACCES" : errno == EPERM ? "EPERM" :
	       strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct hook_err err = { 0 };
	struct sandbox_status st;
	int dirs[2], fd;
	char path[PATH_MAX];

	if (argc != 4) {
		fprintf(stderr, "usage: sandbox-probe CGROUP_DIR OUTSIDE_DIR CONFIG_FILE\n");
		return 2;
	}
	dirs[0] = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dirs[1] = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirs[0] < 0 || dirs[1] < 0) {
		perror("sandbox-probe: open");
		return 2;
	}
	struct sandbox_spec sp = {
		.write_dirs = dirs, .n_write_dirs = 2, .cgroup_root = "/sys/fs/cgroup",
		.read_paths = { argv[3] }, .bus_fd = -1,
	};
	if (sandbox_apply(&sp, &st, &err) < 0) {
		fprintf(stderr, "sandbox-probe: %s\n", err.msg);
		return 1;
	}
	printf("landlock_abi %d\n", st.landlock_abi);
	/* what the hook needs */
	fd = openat(dirs[0], "io.weight", O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, "default 123", 11) != 11)
		fd = -1;
	report("write_cgroup", fd);
	report("read_config", open(argv[3], O_RDONLY | O_CLOEXEC));
	/* Landlock: write outside /sys/fs/cgroup (seccomp would let it by) */
	fd = openat(dirs[1], "victim", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0 && write(fd, "written\n", 8) != 8)
		fd = -1;
	report("write_outside", fd);
	/* Landlock: read outside the config and the cgroup tree */
	snprintf(path, sizeof(path), "%s/victim", argv[2]);
	report("read_outside", open(path, O_RDONLY | O_CLOEXEC));
	report("read_etc", open("/etc/hostname", O_RDONLY | O_CLOEXEC));
	/* seccomp: a write open by path */
	report("write_by_path", open(path, O_WRONLY | O_CLOEXEC));
	return 0;
}
