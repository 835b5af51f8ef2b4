// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_buffer: write throughput of daemon/buffer.  Usage:
 *   bench_buffer [THREADS [RECORDS_PER_THREAD [PAYLOAD_BYTES [NCPUS]]]]
 * Thread t writes to ring t % NCPUS in overwrite mode; prints ns per record.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"

struct worker {
	struct ue_buffer *buf;
	unsigned int cpu;
	unsigned long records;
	size_t len;
	unsigned long failed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ue_rec_meta meta = { .tgid = 1, .tid = 1, .comm = "bench" };
	unsigned char rec[UE_BUFFER_MAX_RECORD];
	struct iovec iov[2] = { { rec, 8 }, { rec + 8, w->len - 8 } };
	unsigned long i;

	memset(rec, 0x5a, sizeof(rec));
	for (i = 0; i < w->records; i++)
		if (ue_buffer_write(w->buf, w->cpu, &meta, iov, 2, w->len))
			w->failed++;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int threads = argc > 1 ? (unsigned int)atoi(argv[1]) : 2;
	unsigned long records = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	size_t payload = argc > 3 ? strtoul(argv[3], NULL, 0) : 32;
	unsigned int ncpus = argc > 4 ? (unsigned int)atoi(argv[4]) : threads;
	struct ue_buffer *buf;
	struct worker *w;
	pthread_t *t;
	uint64_t start, ns;
	unsigned int i;
	int err;

	if (!threads || !ncpus || payload + 8 > UE_BUFFER_MAX_RECORD) {
		fprintf(stderr, "usage: %s [THREADS [RECORDS [PAYLOAD<=%d [NCPUS]]]]\n", argv[0],
			UE_BUFFER_MAX_RECORD - 8);
		return 2;
	}
	err = ue_buffer_new(ncpus, 1408 * 1024, true, &buf);
	if (err) {
		fprintf(stderr, "ue_buffer_new: %s\n", strerror(-err));
		return 1;
	}
	w = calloc(threads, sizeof(*w));
	t = calloc(threads, sizeof(*t));
	if (!w || !t)
		return 1;
	start = ue_buffer_clock_ns();
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ buf, i % ncpus, records, payload + 8, 0 };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	ns = ue_buffer_clock_ns() - start;
	printf("%u threads x %lu records of %zu bytes on %u rings: %.1f ns/record, %.2f M/s\n",
	       threads, records, payload + 8, ncpus, (double)ns / ((double)threads * records),
	       (double)threads * records * 1e3 / (double)ns);
	for (i = 0; i < threads; i++)
		if (w[i].failed)
			printf("thread %u: %lu writes failed\n", i, w[i].failed);
	ue_buffer_free(buf);
	free(w);
	free(t);
	return 0;
}
