// SPDX-License-Identifier: GPL-2.0
/*
 * lib/cgroup.c's cgroup_container on the paths container runtimes make
 * (Docker, containerd and CRI-O under Kubernetes with either cgroup
 * driver, Podman, systemd-nspawn), on paths that only look like them, and
 * the container and pod labels agg/prom.c puts beside a cgroup key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "agg/prom.h"
#include "lib/cgroup.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD "4e1b2c3d-1111-2222-3333-444455556666"
#define POD_ "4e1b2c3d_1111_2222_3333_444455556666"

static void expect(const char *path, const char *want_id, const char *want_pod)
{
	char id[CGROUP_NAME_MAX], pod[CGROUP_POD_MAX];
	bool found = cgroup_container(path, id, pod);

	if (!want_id) {
		if (found)
			fail_msg("%s: found container '%s'", path, id);
		assert_string_equal(id, "");
		assert_string_equal(pod, "");
		return;
	}
	if (!found)
		fail_msg("%s: no container found", path);
	assert_string_equal(id, want_id);
	assert_string_equal(pod, want_pod);
}

static void test_docker(void **state)
{
	(void)state;
	expect("/system.slice/docker-" ID64 ".scope", ID64, "");
	expect("/docker/" ID64, ID64, "");
	/* a process in the container's own sub-cgroup is the container's */
	expect("/system.slice/docker-" ID64 ".scope/init.scope", ID64, "");
}

static void test_kubernetes_systemd_driver(void **state)
{
	(void)state;
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_
	       ".slice/cri-containerd-" ID64 ".scope",
	       ID64, POD);
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	       ".slice/crio-" ID64 ".scope",
	       ID64, POD);
	/* Guaranteed pods sit right under kubepods.slice */
	expect("/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" ID64 ".scope", ID64,
	       POD);
}

static void test_kubernetes_cgroupfs_driver(void **state)
{
	(void)state;
	expect("/kubepods/burstable/pod" POD "/" ID64, ID64, POD);
	expect("/kubepods/pod" POD "/" ID64, ID64, POD);
}

static void test_podman_containerd_nspawn(void **state)
{
	(void)state;
	expect("/machine.slice/libpod-" ID64 ".scope", ID64, "");
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID64 ".scope",
	       ID64, "");
	expect("/default/" ID64, ID64, "");
	expect("/machine.slice/systemd-nspawn@web1.service", "web1", "");
	expect("/machine.slice/machine-db\\x2dprimary.scope", "db-primary", "");
	expect("/machine.slice/systemd-nspawn@web1.service/payload/system.slice", "web1", "");
}

static void test_not_containers(void **state)
{
	(void)state;
	expect("/", NULL, NULL);
	expect("", NULL, NULL);
	expect("/system.slice/ssh.service", NULL, NULL);
	expect("/user.slice/user-1000.slice/session-3.scope", NULL, NULL);
	/* a pod's slice alone is no container */
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_ ".slice",
	       NULL, NULL);
	/* conmon, CRI-O's monitor, is not the container */
	expect("/kubepods.slice/crio-conmon-" ID64 ".scope", NULL, NULL);
	/* 63 or 65 hex digits, upper case, another prefix, no .scope */
	expect("/system.slice/docker-" ID64 "a.scope", NULL, NULL);
	expect("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", NULL,
	       NULL);
	expect("/system.slice/podman-" ID64 ".scope", NULL, NULL);
	expect("/system.slice/docker-" ID64, NULL, NULL);
	/* a pod uid of the wrong length is not taken */
	expect("/kubepods/burstable/pod1234/" ID64, ID64, "");
}

/* prom_write_named's exposition of t as m_total, in a malloc'd string. */
static char *render(struct agg_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(prom_write_named(f, "m_total", "M", &t, 1), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* A cgroup key field: its path, then container and pod where it names them. */
static void test_prom_labels(void **state)
{
	struct agg_field fields[] = { { AGG_F_CGROUP, "cgroup" } };
	struct agg_val k1[] = { { .text = "/kubepods/pod" POD "/" ID64 } };
	struct agg_val k2[] = { { .text = "/system.slice/ssh.service" } };
	struct agg_row rows[] = { { .key = k1, .count = 3 }, { .key = k2, .count = 2 } };
	struct agg_table t = { .kind = AGG_COUNT,
			       .func = "f",
			       .fields = fields,
			       .nr_fields = 1,
			       .rows = rows,
			       .nr_rows = 2 };
	char *buf;

	(void)state;
	buf = render(&t);
	assert_string_equal(buf, "# HELP m_total M\n# TYPE m_total counter\n"
				 "m_total{func=\"f\",cgroup=\"/kubepods/pod" POD "/" ID64
				 "\",container=\"" ID64 "\",pod=\"" POD "\"} 3\n"
				 "m_total{func=\"f\",cgroup=\"/system.slice/ssh.service\"} 2\n");
	free(buf);
}

/* A value item named container beside a cgroup key is renamed, not clashing. */
static void test_prom_container_label_reserved(void **state)
{
	struct agg_field fields[] = { { AGG_F_VALUE, "container" }, { AGG_F_CGROUP, "cgroup" } };
	struct agg_val k[] = { { .text = "7", .number = true }, { .text = "/" } };
	struct agg_row rows[] = { { .key = k, .count = 1 } };
	struct agg_table t = { .kind = AGG_COUNT,
			       .func = "f",
			       .fields = fields,
			       .nr_fields = 2,
			       .rows = rows,
			       .nr_rows = 1 };
	char *buf;

	(void)state;
	buf = render(&t);
	assert_non_null(strstr(buf, "m_total{func=\"f\",container_2=\"7\",cgroup=\"/\"} 1\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker),
		cmocka_unit_test(test_kubernetes_systemd_driver),
		cmocka_unit_test(test_kubernetes_cgroupfs_driver),
		cmocka_unit_test(test_podman_containerd_nspawn),
		cmocka_unit_test(test_not_containers),
		cmocka_unit_test(test_prom_labels),
		cmocka_unit_test(test_prom_container_label_reserved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
