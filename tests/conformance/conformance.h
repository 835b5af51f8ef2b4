/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conformance.h: what the files of the conformance program share: the
 * output and tracefs helpers of common.c and the sections, each in a file
 * of its own (cases-*.c, facts.c), run by main() in conformance.c.
 */
#ifndef UE_TESTS_CONFORMANCE_H
#define UE_TESTS_CONFORMANCE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <userevents/abi.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIG	      (1 << 20)
#define MAX_PAYLOAD   8192
/* DIAG_IOCSDEL reads at most this many bytes of name (kernel MAX_EVENT_DESC). */
#define UE_NAME_MAX_DEL 512

typedef bool (*vary_fn)(const char *line, size_t len);

/* A case: one descriptor, its enablers and the names to wait for at the end. */
struct ctx {
	int fd;
	int nen;
	struct {
		int fd;
		uint64_t addr;
		uint8_t bit;
	} en[32];
	int nnames;
	char names[16][600];
};

enum how { HOW_WRITEV, HOW_WRITE };

/* common.c */
extern const char *root;
extern const char *only_sections;
extern char big[BIG];
extern char tracebuf[BIG];
extern int ctl_fd;
extern bool context_shown;
extern long page_size;
extern uint64_t words[64];
extern unsigned int next_word;
extern const char *format_name_args;

const char *errname(int err);
const char *res(long r);
bool section(const char *name);
void begin(const char *name);
void put_esc(const char *s, size_t n, bool quoted);
void put_quoted(const char *s);
void put_hex(const void *p, size_t n);
const char *tpath(const char *rel);
ssize_t slurp(const char *rel, char *buf, size_t cap);
ssize_t put_file(const char *rel, const char *text, int flags);
bool declared_array_field(const char *name_args, const char *fname, size_t flen);
bool normalise_field_len(char *line, size_t len, size_t *ret_len);
bool vary_id_line(const char *line, size_t len);
bool vary_trace_header(const char *line, size_t len);
bool vary_trace_file(const char *line, size_t len);
bool vary_all(const char *line, size_t len);
void show_text(const char *id, const char *rel, const char *text, ssize_t n, vary_fn vary);
void show_file(const char *id, const char *rel, vary_fn vary);
void show_value(const char *id, const char *rel);
const char *type_name(mode_t m);
void show_stat(const char *id, const char *rel);
int cmp_str(const void *a, const void *b);
int list_dir(const char *rel, char ***ret);
void free_list(char **names, int n);
void show_dir(const char *id, const char *rel);
void clear_trace(void);
uint64_t *take_word(void);
int open_data(void);
int ioc(int fd, unsigned long cmd, void *arg);
int unreg(int fd, uint64_t addr, uint8_t bit);
void wait_gone(const char *name);
void name_of(const char *name_args, char *buf, size_t len);
void ctx_open(struct ctx *c);
void ctx_track(struct ctx *c, const char *name_args);
void ctx_enabler(struct ctx *c, int fd, uint64_t addr, uint8_t bit);
void ctx_close(struct ctx *c);
void print_reg(const char *id, const char *name_args, unsigned int flags, int r, uint32_t idx);
int ctx_reg(struct ctx *c, const char *id, const char *name_args, uint16_t flags, uint32_t *ret_idx,
	    uint64_t **ret_word);
bool is_user_events_line(const char *p);
void show_available(const char *id);
void show_format(const char *id, const char *name_args, const char *system, const char *tp_name);
void show_shared_texts(const char *id);
void show_event_texts(const char *id, const char *name_args, const char *system,
		      const char *tp_name);
void show_multi_texts(const char *id, const char *name_args, const char *name);
void show_registered(const char *id, const char *name_args, uint16_t flags);
int enable_event(const char *system, const char *tp_name, const char *val);
ssize_t fwrite_show(const char *id, const char *rel, const char *text, int flags);
size_t spec_bytes(const char *spec, unsigned char *out);
ssize_t write_event(int fd, int32_t idx, const void *payload, size_t len, enum how how);
const char *event_part(const char *line);
bool is_record_start(const char *line, size_t len);
void show_trace_lines(const char *id);
void *unmapped_page(void);
void do_write(const char *id, int fd, int32_t idx, const char *spec, enum how how);

/* The sections, in the order main() runs them. */
void sec_env(void);
void sec_parse(void);
void sec_match(void);
void sec_reg(void);
void sec_unreg(void);
void sec_enable(void);
void sec_del(void);
void sec_multi(void);
void sec_ioctl(void);
void sec_pay(void);
void sec_wr(void);
void sec_dyn(void);
void sec_status(void);
void sec_filter(void);
void sec_marker(void);
void sec_trigger(void);
void sec_mem(void);
void run_facts(void);

#endif /* UE_TESTS_CONFORMANCE_H */
