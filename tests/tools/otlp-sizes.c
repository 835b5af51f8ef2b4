// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * otlp-sizes: writes the OpenTelemetry metrics exporter's event
 * ("otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer") with
 * buffers of 1 KiB, 4 KiB, 16 KiB and the largest usereventsd keeps (a
 * 65504-byte payload), then one byte more, and prints for each "SIZE FNV1A"
 * (the buffer's length and 64-bit FNV-1a) or "over RESULT" for the last.
 * MODE raw: the kernel's ABI, struct user_reg, ioctl and writev (through FUSE,
 * or the interposer under LD_PRELOAD); MODE lib: libuserevents (its native
 * ring against usereventsd).  It waits up to 5 s for a tracer to enable the
 * event.  Usage: otlp-sizes raw|lib [TRACEFS]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <userevents/abi.h>
#include <userevents/userevents.h>

UE_EVENT(otlp_metrics, UE_U32(protocol), UE_CHARS(version, 8), UE_BYTES(buffer))

#define FIXED 16	/* protocol, version, the buffer's location */
static const size_t sizes[] = { 1024, 4096, 16384, UE_MAX_PAYLOAD - FIXED, UE_MAX_PAYLOAD - FIXED + 1 };
static uint8_t buf[UE_MAX_PAYLOAD];

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

static void fill(size_t n, unsigned int k)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 31 + k * 7 + (i >> 9));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int run_raw(const char *tracefs)
{
	static uint32_t word;
	char path[4200];
	struct user_reg reg = { .size = sizeof(reg), .enable_size = 4 };
	int fd;

	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	reg.enable_addr = (uintptr_t)&word;
	reg.name_args = (uintptr_t)"otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer";
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		perror("DIAG_IOCSREG");
		return 1;
	}
	for (int i = 0; i < 500 && !__atomic_load_n(&word, __ATOMIC_RELAXED); i++)
		sleep_ms(10);
	if (!word) {
		fprintf(stderr, "otlp-sizes: the event was not enabled\n");
		return 1;
	}
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t idx = reg.write_index, proto = 1, loc = (uint32_t)sizes[k] << 16;
		char version[8] = "0.1.0";
		struct iovec iov[5] = { { &idx, 4 }, { &proto, 4 }, { version, 8 }, { &loc, 4 },
					{ buf, sizes[k] } };
		ssize_t r;

		fill(sizes[k], k);
		r = writev(fd, iov, 5);
		if (k + 1 == sizeof(sizes) / sizeof(sizes[0])) {
			printf("over %zd %s\n", r, r < 0 ? strerror(errno) : "");
		} else if (r != (ssize_t)(4 + FIXED + sizes[k])) {
			fprintf(stderr, "otlp-sizes: writev of %zu: %zd (%s)\n", sizes[k], r,
				strerror(errno));
			return 1;
		} else {
			printf("%zu %016llx\n", sizes[k], (unsigned long long)fnv1a(buf, sizes[k]));
		}
	}
	return 0;
}

static int run_lib(void)
{
	struct ue_provider *p;
	int r = ue_provider_open(NULL, &p);

	if (r < 0 || (r = ue_otlp_metrics_register(p)) < 0) {
		fprintf(stderr, "otlp-sizes: %s\n", strerror(-r));
		return 1;
	}
	for (int i = 0; i < 500 && !ue_otlp_metrics_enabled(); i++)
		sleep_ms(10);
	if (!ue_otlp_metrics_enabled()) {
		fprintf(stderr, "otlp-sizes: the event was not enabled\n");
		return 1;
	}
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		fill(sizes[k], k);
		r = ue_otlp_metrics_write(1, "0.1.0", buf, sizes[k]);
		if (k + 1 == sizeof(sizes) / sizeof(sizes[0])) {
			printf("over %d\n", r);
		} else if (r < 0) {
			fprintf(stderr, "otlp-sizes: write of %zu: %s\n", sizes[k], strerror(-r));
			return 1;
		} else {
			printf("%zu %016llx\n", sizes[k], (unsigned long long)fnv1a(buf, sizes[k]));
		}
	}
	ue_provider_close(p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *tracefs = argc > 2 ? argv[2] : getenv("USEREVENTS_TRACEFS");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "raw"))
		return run_raw(tracefs ? tracefs : "/sys/kernel/tracing");
	if (argc > 1 && !strcmp(argv[1], "lib"))
		return run_lib();
	fprintf(stderr, "usage: otlp-sizes raw|lib [TRACEFS]\n");
	return 2;
}
