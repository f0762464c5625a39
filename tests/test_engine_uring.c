/* test_engine_uring.c - the io_uring engine on real files (tests in
 * engine_check.h).  Skips (77) with the reason when io_uring is blocked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define ENGINE_UNDER_TEST engine_uring
#include "engine_check.h"

#include <stddef.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* In a child, block io_uring_setup the way container runtimes do (seccomp
 * answering errno) and check probe() says so, with the advice. */
static int probe_under_seccomp(int err, char *why, size_t len)
{
	int fds[2];
	pid_t pid;
	int st = 0;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
		const char *w = "";
		int ret;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(3);
		ret = engine_uring.probe(&w);
		dprintf(fds[1], "%d|%s", ret, w ? w : "");
		_exit(0);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], why, len - 1);
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || n <= 0)
		return -2;
	why[n] = '\0';
	return 0;
}

static void t_probe_blocked(void **state)
{
	(void)state;
	char out[512];
	int errs[] = { ENOSYS, EPERM, EINVAL };

	for (unsigned i = 0; i < 3; i++) {
		char want[64];

		assert_int_equal(probe_under_seccomp(errs[i], out, sizeof(out)), 0);
		snprintf(want, sizeof(want), "%d|", -errs[i]);
		assert_true(strncmp(out, want, strlen(want)) == 0);
		assert_non_null(strstr(out, "io_uring is blocked here (kernel or seccomp); use -e sync or -e libaio"));
	}
	/* another failure is not called "blocked" */
	assert_int_equal(probe_under_seccomp(ENOMEM, out, sizeof(out)), 0);
	assert_true(strncmp(out, "-12|", 4) == 0);
	assert_null(strstr(out, "blocked"));
}

int main(void)
{
	const char *why = NULL;
	int ret;

	/* the blocked path is tested whether or not io_uring works here */
	const struct CMUnitTest probe_tests[] = {
		cmocka_unit_test(t_probe_blocked),
	};
	if (cmocka_run_group_tests(probe_tests, NULL, NULL))
		return 1;
	ret = engine_uring.probe(&why);
	if (ret < 0) {
		printf("SKIP: %s (%s)\n", why ? why : "io_uring unavailable", strerror(-ret));
		return 77;
	}
	const struct CMUnitTest tests[] = {
		ENGINE_CHECK_TESTS,
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
