// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/filter-*.c.  The main table is a session on the reference
 * kernel (Linux 6.12): filters written to events/user_events/fa/filter with
 * the errno and the file's text after each write, and records written to
 * the event with whether they reached the trace.  The other tests cover our
 * own rules where the kernel would read outside the record.
 */
#include <stdint.h>

#include "harness.h"
#include "core.h"

#define FA_ARGS                                                                          \
	"fa u32 a;s8 b;char[8] c;__data_loc char[] s;__rel_loc char[] r;u64 d;s16 h;u16 uh;" \
	"s64 sd;struct foo st 3;unsigned char uc"
#define FB_ARGS "fb u32 cpu;u32 common_pid;u32 x;u32 x;u32 COMM;u32 a.b;u8 COMMON_PID"

enum step_kind { STEP_FILTER, STEP_WRITE, STEP_COMM };

/*
 * STEP_FILTER: text written (escaped), errno, the filter file afterwards.
 * STEP_WRITE: payload in hex (after the write_index), 1 when it was traced.
 * STEP_COMM: the writer's comm from then on.
 * Escapes: \n \t \0 \\ \xHH, and \R<count><char> for a run of one character.
 */
static const struct {
	enum step_kind kind;
	const char *event;
	const char *text;
	int result;
	const char *file;
} session[] = {
	{ STEP_FILTER, "fa", "a == 1", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "  a == 1  \\n", 0, "  a == 1\\n" },
	{ STEP_FILTER, "fa", "\\ta == 1\\n\\n", 0, "\\x09a == 1\\n" },
	{ STEP_FILTER, "fa", "0", 0, "none\\n" },
	{ STEP_FILTER, "fa", " 0 \\n", 0, "none\\n" },
	{ STEP_FILTER, "fa", "0\\n", 0, "none\\n" },
	{ STEP_FILTER, "fa", "", 22, "\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "\\n", 22, "\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "   ", 22, "\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "nosuch == 1", 22,
	  "nosuch == 1\\n       ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a = 1", 22, "a = 1\\n   ^\\nparse_error: Invalid operator\\n\\n" },
	{ STEP_FILTER, "fa", "a == \"x\"", 22,
	  "a == \"x\"\\n      ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fa", "c == 1", 22,
	  "c == 1\\n      ^\\nparse_error: Expecting string field\\n\\n" },
	{ STEP_FILTER, "fa", "c < \"x\"", 22,
	  "c < \"x\"\\n     ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "a ~ 1", 22,
	  "a ~ 1\\n     ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 &&", 22,
	  "a == 1 &&\\n\\R9 ^\\nparse_error: Meaningless filter expression\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 ||", 22,
	  "a == 1 ||\\n\\R9 ^\\nparse_error: Meaningless filter expression\\n\\n" },
	{ STEP_FILTER, "fa", "(a == 1", 2, "(a == 1\\n^\\nparse_error: Too many '('\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1)", 1, "a == 1)\\n      ^\\nparse_error: Too few '('\\n\\n" },
	{ STEP_FILTER, "fa", "((a == 1) && (b == 2)", 2,
	  "((a == 1) && (b == 2)\\n^\\nparse_error: Too many '('\\n\\n" },
	{ STEP_FILTER, "fa", "a == \"abc", 3,
	  "a == \"abc\\n     ^\\nparse_error: Missing matching quote\\n\\n" },
	{ STEP_FILTER, "fa", "a == 'abc", 3,
	  "a == 'abc\\n     ^\\nparse_error: Missing matching quote\\n\\n" },
	{ STEP_FILTER, "fa", "c == 'abc\"", 3,
	  "c == 'abc\"\\n     ^\\nparse_error: Missing matching quote\\n\\n" },
	{ STEP_FILTER, "fa", "c == \"\\R255x\"", 0, "c == \"\\R255x\"\\n" },
	{ STEP_FILTER, "fa", "c == \"\\R256x\"", 22,
	  "c == \"\\R256x\"\\n\\R263 ^\\nparse_error: Operand too long\\n\\n" },
	{ STEP_FILTER, "fa", "c == \"\\R300x\"", 22,
	  "c == \"\\R300x\"\\n\\R307 ^\\nparse_error: Operand too long\\n\\n" },
	{ STEP_FILTER, "fa", "a == 0x12345678901234567890123", 22,
	  "a == 0x12345678901234567890123\\n\\R30 ^\\nparse_error: Operand too long\\n\\n" },
	{ STEP_FILTER, "fa", "a == 0x1234567890123456789012", 22,
	  "a == 0x1234567890123456789012\\n\\R29 ^\\nparse_error: Operand too long\\n\\n" },
	{ STEP_FILTER, "fa", "a == 12abc", 22,
	  "a == 12abc\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == -1", 22,
	  "a == -1\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "b == -1", 0, "b == -1\\n" },
	{ STEP_FILTER, "fa", "a == 4294967296", 0, "a == 4294967296\\n" },
	{ STEP_FILTER, "fa", "d == 18446744073709551615", 0, "d == 18446744073709551615\\n" },
	{ STEP_FILTER, "fa", "d == 18446744073709551616", 22,
	  "d == 18446744073709551616\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "sd == -9223372036854775808", 0, "sd == -9223372036854775808\\n" },
	{ STEP_FILTER, "fa", "sd == -9223372036854775809", 22,
	  "sd == -9223372036854775809\\n       ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "sd == 9223372036854775808", 22,
	  "sd == 9223372036854775808\\n       ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == 0x", 22,
	  "a == 0x\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == 0x1g", 22,
	  "a == 0x1g\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == 08", 22,
	  "a == 08\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == 07", 0, "a == 07\\n" },
	{ STEP_FILTER, "fa", "a == 1\\n", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "a == +1", 22,
	  "a == +1\\n      ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fa", "a == x", 22,
	  "a == x\\n      ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fa", "== 1", 1, "== 1\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 b == 2", 1,
	  "a == 1 b == 2\\n       ^\\nparse_error: Too many terms in predicate expression\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 & b == 2", 1,
	  "a == 1 & b == 2\\n       ^\\nparse_error: Too many terms in predicate expression\\n\\n" },
	{ STEP_FILTER, "fa", "()", 22, "()\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "(())", 22, "(())\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "&&", 1, "&&\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "!", 22, "!\\n ^\\nparse_error: No filter found\\n\\n" },
	{ STEP_FILTER, "fa", "!!", 22, "!!\\n  ^\\nparse_error: No filter found\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 || (b == 2 && !c ~ \"x*\")", 0,
	  "a == 1 || (b == 2 && !c ~ \"x*\")\\n" },
	{ STEP_FILTER, "fa", "a.function == 1", 22,
	  "a.function == 1\\n\\R15 ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "d.function == 0x10", 22,
	  "d.function == 0x10\\n\\R18 ^\\nparse_error: Function not found\\n\\n" },
	{ STEP_FILTER, "fa", "d.function == nosuchfn", 22,
	  "d.function == nosuchfn\\n\\R22 ^\\nparse_error: Function not found\\n\\n" },
	{ STEP_FILTER, "fa", "d.function < 3", 22,
	  "d.function < 3\\n\\R14 ^\\nparse_error: Invalid operator\\n\\n" },
	{ STEP_FILTER, "fa", "a.ustring == 1", 0, "a.ustring == 1\\n" },
	{ STEP_FILTER, "fa", "a == CPUS{0}", 0, "a == CPUS{0}\\n" },
	{ STEP_FILTER, "fa", "c == CPUS{0}", 22,
	  "c == CPUS{0}\\n      ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "a == CPUS", 22,
	  "a == CPUS\\n\\R9 ^\\nparse_error: Missing '{'\\n\\n" },
	{ STEP_FILTER, "fa", "a == CPUS{", 22,
	  "a == CPUS{\\n\\R10 ^\\nparse_error: Missing '}'\\n\\n" },
	{ STEP_FILTER, "fa", "a == CPUS{}", 22,
	  "a == CPUS{}\\n\\R11 ^\\nparse_error: Invalid cpulist\\n\\n" },
	{ STEP_FILTER, "fa", "a < CPUS{0}", 22,
	  "a < CPUS{0}\\n     ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "a == CPUS{0-1}", 22,
	  "a == CPUS{0-1}\\n\\R14 ^\\nparse_error: Invalid cpulist\\n\\n" },
	{ STEP_FILTER, "fa", "CPU == CPUS{0}", 0, "CPU == CPUS{0}\\n" },
	{ STEP_FILTER, "fa", "a & CPUS{99999}", 22,
	  "a & CPUS{99999}\\n\\R15 ^\\nparse_error: Invalid cpulist\\n\\n" },
	{ STEP_FILTER, "fa", "a == CPUS{x}", 22,
	  "a == CPUS{x}\\n\\R12 ^\\nparse_error: Invalid cpulist\\n\\n" },
	{ STEP_FILTER, "fa", "COMM == \"x\"", 0, "COMM == \"x\"\\n" },
	{ STEP_FILTER, "fa", "comm ~ \"*x*\"", 0, "comm ~ \"*x*\"\\n" },
	{ STEP_FILTER, "fa", "COMM == 1", 22,
	  "COMM == 1\\n\\R9 ^\\nparse_error: Expecting string field\\n\\n" },
	{ STEP_FILTER, "fa", "CPU == 0", 0, "CPU == 0\\n" },
	{ STEP_FILTER, "fa", "cpu < 1", 0, "cpu < 1\\n" },
	{ STEP_FILTER, "fa", "CPU == \"x\"", 22,
	  "CPU == \"x\"\\n\\R8 ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fa", "common_cpu == 0", 0, "common_cpu == 0\\n" },
	{ STEP_FILTER, "fa", "stacktrace == 1", 0, "stacktrace == 1\\n" },
	{ STEP_FILTER, "fa", "STACKTRACE == \"x\"", 22,
	  "STACKTRACE == \"x\"\\n\\R15 ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fa", "CPU & 1", 0, "CPU & 1\\n" },
	{ STEP_FILTER, "fa", "CPU ~ 1", 22,
	  "CPU ~ 1\\n       ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "common_pid == 1", 0, "common_pid == 1\\n" },
	{ STEP_FILTER, "fa", "common_type != 0", 0, "common_type != 0\\n" },
	{ STEP_FILTER, "fa", "common_flags & 1", 0, "common_flags & 1\\n" },
	{ STEP_FILTER, "fa", "common_preempt_count > 3", 0, "common_preempt_count > 3\\n" },
	{ STEP_FILTER, "fa", "a == 1\\0garbage", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "a==1&&b==2", 0, "a==1&&b==2\\n" },
	{ STEP_FILTER, "fa", "a == 1 &&& b == 2", 1, "a == 1 &&& b == 2\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1\\n&& b == 2", 0, "a == 1\\n&& b == 2\\n" },
	{ STEP_FILTER, "fa", "(((a == 1)))", 0, "(((a == 1)))\\n" },
	{ STEP_FILTER, "fa", "\\xa0a == 1\\xa0", 0, "\\xa0a == 1\\n" },
	{ STEP_FILTER, "fa", "s ~ \"!abc\"", 0, "s ~ \"!abc\"\\n" },
	{ STEP_FILTER, "fa", "s ~ \"ab[c]\"", 0, "s ~ \"ab[c]\"\\n" },
	{ STEP_FILTER, "fa", "a == 1 && nosuch == 2", 22,
	  "a == 1 && nosuch == 2\\n\\R17 ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 && b = 2", 22,
	  "a == 1 && b = 2\\n\\R13 ^\\nparse_error: Invalid operator\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 ||| b == 1", 1, "a == 1 ||| b == 1\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a<1", 0, "a<1\\n" },
	{ STEP_FILTER, "fa", "a<=1", 0, "a<=1\\n" },
	{ STEP_FILTER, "fa", "a>=1", 0, "a>=1\\n" },
	{ STEP_FILTER, "fa", "a>1", 0, "a>1\\n" },
	{ STEP_FILTER, "fa", "a&1", 0, "a&1\\n" },
	{ STEP_FILTER, "fa", "a!=1", 0, "a!=1\\n" },
	{ STEP_FILTER, "fa", "a=~1", 22, "a=~1\\n  ^\\nparse_error: Invalid operator\\n\\n" },
	{ STEP_FILTER, "fa", "!a == 1", 0, "!a == 1\\n" },
	{ STEP_FILTER, "fa", "a !~ 1", 22, "a !~ 1\\n   ^\\nparse_error: Invalid operator\\n\\n" },
	{ STEP_FILTER, "fa", "a == '1'", 22,
	  "a == '1'\\n      ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fa", "st == 1", 0, "st == 1\\n" },
	{ STEP_FILTER, "fa", "st ~ \"x\"", 22,
	  "st ~ \"x\"\\n      ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fa", "s < \"x\"", 22,
	  "s < \"x\"\\n     ^\\nparse_error: Illegal operation for field type\\n\\n" },
	{ STEP_FILTER, "fa", "s & 1", 22,
	  "s & 1\\n     ^\\nparse_error: Expecting string field\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 && (b == 2 || h == 3", 2,
	  "a == 1 && (b == 2 || h == 3\\n\\R10 ^\\nparse_error: Too many '('\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1)) && (b == 1", 1,
	  "a == 1)) && (b == 1\\n      ^\\nparse_error: Too few '('\\n\\n" },
	{ STEP_FILTER, "fa", ")a == 1", 1, ")a == 1\\n^\\nparse_error: Too few '('\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 ) ( b == 2", 1,
	  "a == 1 ) ( b == 2\\n       ^\\nparse_error: Too few '('\\n\\n" },
	{ STEP_FILTER, "fa", "\"a\" == 1", 1, "\"a\" == 1\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 && \"", 3,
	  "a == 1 && \"\\n\\R10 ^\\nparse_error: Missing matching quote\\n\\n" },
	{ STEP_FILTER, "fa", "a == (1)", 22,
	  "a == (1)\\n      ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fa", "(a == 1) (b == 1)", 1,
	  "(a == 1) (b == 1)\\n\\R9 ^\\nparse_error: Too many terms in predicate expression\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 && ()", 1, "a == 1 && ()\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 && !", 22,
	  "a == 1 && !\\n\\R11 ^\\nparse_error: Meaningless filter expression\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 &&", 22,
	  "a == 1 &&\\n\\R9 ^\\nparse_error: Meaningless filter expression\\n\\n" },
	{ STEP_FILTER, "fa", " a  ==  1   &&   b  ==  x", 22,
	  " a  ==  1   &&   b  ==  x\\n\\R25 ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fa", "abcdefghijklmnopqrstuvwxyz == 1", 22,
	  "abcdefghijklmnopqrstuvwxyz == 1\\n\\R27 ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "s == \"\"", 0, "s == \"\"\\n" },
	{ STEP_FILTER, "fa", "c ~ \"\"", 0, "c ~ \"\"\\n" },
	{ STEP_FILTER, "fa", "c ~ \"*\"", 0, "c ~ \"*\"\\n" },
	{ STEP_FILTER, "fa", "c ~ \"**\"", 0, "c ~ \"**\"\\n" },
	{ STEP_FILTER, "fa", "c ~ \"!*\"", 0, "c ~ \"!*\"\\n" },
	{ STEP_FILTER, "fa", "\\xe9 == 1", 22,
	  "\\xe9 == 1\\n  ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a\\xe9 == 1", 22,
	  "a\\xe9 == 1\\n   ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1\\xe9", 22,
	  "a == 1\\xe9\\n      ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1 \\xe9", 1,
	  "a == 1 \\xe9\\n       ^\\nparse_error: Too many terms in predicate expression\\n\\n" },
	{ STEP_FILTER, "fa", "s ~ \"\\xe9\"", 0, "s ~ \"\\xe9\"\\n" },
	{ STEP_FILTER, "fa", "cpu == 1", 0, "cpu == 1\\n" },
	{ STEP_FILTER, "fa", "COMM == 5", 22,
	  "COMM == 5\\n\\R9 ^\\nparse_error: Expecting string field\\n\\n" },
	{ STEP_FILTER, "fa", "x == 1", 22, "x == 1\\n  ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "common_pid == 1", 0, "common_pid == 1\\n" },
	{ STEP_FILTER, "fa", "COMMON_PID == 1", 22,
	  "COMMON_PID == 1\\n\\R11 ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == \\R5000x", 22,
	  "COMMON_PID == 1\\n\\R11 ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == \\R4090x", 22,
	  "a == \\R4090x\\n      ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fb", "cpu == \"x\"", 22,
	  "cpu == \"x\"\\n\\R8 ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fb", "cpu == 5", 0, "cpu == 5\\n" },
	{ STEP_FILTER, "fb", "COMM == 5", 0, "COMM == 5\\n" },
	{ STEP_FILTER, "fb", "COMM == \"x\"", 22,
	  "COMM == \"x\"\\n\\R9 ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fb", "x == 1", 0, "x == 1\\n" },
	{ STEP_FILTER, "fb", "a == 1", 22, "a == 1\\n  ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fb", "common_pid == \"x\"", 22,
	  "common_pid == \"x\"\\n\\R15 ^\\nparse_error: Expecting numeric field\\n\\n" },
	{ STEP_FILTER, "fb", "common_pid == 1", 0, "common_pid == 1\\n" },
	{ STEP_FILTER, "fb", "COMMON_PID == 1", 0, "COMMON_PID == 1\\n" },
	{ STEP_FILTER, "fa", "a == 1", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "nosuch == 1", 22,
	  "nosuch == 1\\n       ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "0", 0, "none\\n" },
	{ STEP_FILTER, "fa", "nosuch == 2", 22,
	  "nosuch == 2\\n       ^\\nparse_error: Field not found\\n\\n" },
	{ STEP_FILTER, "fa", "a == x", 22,
	  "a == x\\n      ^\\nparse_error: Invalid value (did you forget quotes)?\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "\\R4095 ", 22, "\\nError: (0)\\n\\n" },
	{ STEP_FILTER, "fa", "a == 1", 0, "a == 1\\n" },
	{ STEP_FILTER, "fa", "\\R4096 ", 22, "a == 1\\n" },
	{ STEP_FILTER, "fa", "a == 1 && \\R4080 ", 22,
	  "a == 1 &&\\n\\R9 ^\\nparse_error: Meaningless filter expression\\n\\n" },
	{ STEP_COMM, NULL, "probe", 0, NULL },
	{ STEP_FILTER, "fa", "a == 0xdeadbeef", 0, "a == 0xdeadbeef\\n" },
	{ STEP_WRITE, "fa", "efbeadde000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "b < 0", 0, "b < 0\\n" },
	{ STEP_WRITE, "fa", "00000000fb0000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000050000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "a > 0x7fffffff", 0, "a > 0x7fffffff\\n" },
	{ STEP_WRITE, "fa", "00000080000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "05000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "h < -1", 0, "h < -1\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e0006000000000000000000feff000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "uh > 32767", 0, "uh > 32767\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000409c00000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000010000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "d & 0x100000000", 0, "d & 0x100000000\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000010000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060001000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "sd >= -5", 0, "sd >= -5\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e000600000000000000000000000000fbffffffffffffff0000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e000600000000000000000000000000faffffffffffffff0000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "a == 4294967297", 0, "a == 4294967297\\n" },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "b == 255", 0, "b == 255\\n" },
	{ STEP_WRITE, "fa", "00000000ff0000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "b < 255", 0, "b < 255\\n" },
	{ STEP_WRITE, "fa", "00000000ff0000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000030000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "uc == -1", 22,
	  "uc == -1\\n       ^\\nparse_error: Illegal integer value\\n\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e0006000000000000000000000000000000000000000000000000ff68656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "c == \"abc\"", 0, "c == \"abc\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162630000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006162636400000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006162000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c == \"abcdefgh\"", 0, "c == \"abcdefgh\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162636465666768350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006162636465666700350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c ~ \"*bc\"", 0, "c ~ \"*bc\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162630000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000007878787878626300350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000007878787878786263350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c ~ \"*cd*\"", 0, "c ~ \"*cd*\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162006364000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "0000000000616278797a000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c ~ \"ab*\"", 0, "c ~ \"ab*\"\\n" },
	{ STEP_WRITE, "fa", "000000000061627a0000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006261000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c ~ \"a?c\"", 0, "c ~ \"a?c\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162630000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006162636400000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c ~ \"[ab]bc*\"", 0, "c ~ \"[ab]bc*\"\\n" },
	{ STEP_WRITE, "fa", "000000000062626378797a0000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006362630000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "c != \"abc\"", 0, "c != \"abc\"\\n" },
	{ STEP_WRITE, "fa", "00000000006162630000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000006162640000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s == \"hello\"", 0, "s == \"hello\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350005001d00060000000000000000000000000000000000000000000000000068656c6c00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"*llo\"", 0, "s ~ \"*llo\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c7800776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"he*\"", 0, "s ~ \"he*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350002001a0006000000000000000000000000000000000000000000000000006800776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"*ell*\"", 0, "s ~ \"*ell*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068786c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"h?llo\"", 0, "s ~ \"h?llo\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068616c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350005001d000600000000000000000000000000000000000000000000000000686c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s != \"hello\"", 0, "s != \"hello\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350002001a0006000000000000000000000000000000000000000000000000007800776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"!hel*\"", 0, "s ~ \"!hel*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350002001a0006000000000000000000000000000000000000000000000000007800776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"*\"", 0, "s ~ \"*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350001001900060000000000000000000000000000000000000000000000000000776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350002001a0006000000000000000000000000000000000000000000000000007800776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"**\"", 0, "s ~ \"**\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350001001900060000000000000000000000000000000000000000000000000000776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"1*\"", 0, "s ~ \"1*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350003001b000600000000000000000000000000000000000000000000000000312a00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350003001b000600000000000000000000000000000000000000000000000000313200776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"a\\\\*\"", 0, "s ~ \"a\\\\*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350003001b000600000000000000000000000000000000000000000000000000612a00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350003001b000600000000000000000000000000000000000000000000000000616200776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "r == \"world\"", 0, "r == \"world\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00050000000000000000000000000000000000000000000000000068656c6c6f00776f726c00", 0,
	  NULL },
	{ STEP_FILTER, "fa", "r ~ \"*rld\"", 0, "r ~ \"*rld\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00020000000000000000000000000000000000000000000000000068656c6c6f007800", 0,
	  NULL },
	{ STEP_FILTER, "fa", "r ~ \"w*d\"", 0, "r ~ \"w*d\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00020000000000000000000000000000000000000000000000000068656c6c6f007800", 0,
	  NULL },
	{ STEP_FILTER, "fa", "COMM == \"probe\"", 0, "COMM == \"probe\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"pro*\"", 0, "comm ~ \"pro*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"*obe\"", 0, "comm ~ \"*obe\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"*rob*\"", 0, "comm ~ \"*rob*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"p?obe\"", 0, "comm ~ \"p?obe\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "COMM != \"probe\"", 0, "COMM != \"probe\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "CPU == 0", 0, "CPU == 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "cpu != 0", 0, "cpu != 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "cpu < 0", 0, "cpu < 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "CPU >= 0", 0, "CPU >= 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "CPU & 1", 0, "CPU & 1\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "a == 1 || b == 1 && h == 1", 0, "a == 1 || b == 1 && h == 1\\n" },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000010000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000010000000000000000350006001e00060000000000000000000100000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000100000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "!(a == 1 || b == 1)", 0, "!(a == 1 || b == 1)\\n" },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000010000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "st == 0", 0, "st == 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "!(st == 0)", 0, "!(st == 0)\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "st != 0", 0, "st != 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "common_pid > 0", 0, "common_pid > 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "common_pid < 0", 0, "common_pid < 0\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "a != 1 && !(b == 2) || !h == 3", 0,
	  "a != 1 && !(b == 2) || !h == 3\\n" },
	{ STEP_WRITE, "fa", "02000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000300000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_WRITE, "fa", "01000000000000000000000000350006001e00060000000000000000000400000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "stacktrace == 1", 0, "stacktrace == 1\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "!(stacktrace == 1)", 0, "!(stacktrace == 1)\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s == \"hello\"", 0, "s == \"hello\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350000001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"*\"", 0, "s ~ \"*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350000001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"h*\"", 0, "s ~ \"h*\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350000001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "s ~ \"h?llo\"", 0, "s ~ \"h?llo\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350000001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_COMM, NULL, "abcdefghijklmnopqrstu", 0, NULL },
	{ STEP_FILTER, "fa", "COMM == \"abcdefghijklmno\"", 0, "COMM == \"abcdefghijklmno\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"*mno\"", 0, "comm ~ \"*mno\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },
	{ STEP_FILTER, "fa", "comm ~ \"*lmn\"", 0, "comm ~ \"*lmn\"\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 0,
	  NULL },
	{ STEP_FILTER, "fa", "0", 0, "none\\n" },
	{ STEP_WRITE, "fa", "00000000000000000000000000350006001e00060000000000000000000000000000000000000000000000000068656c6c6f00776f726c6400", 1,
	  NULL },

};

/*
 * Where we differ (docs/compat.md): a non-empty CPUS{...} list is refused
 * with our own reason; the kernel parses it against its CPU count (one on
 * the reference kernel: "0" passes, "0-1" is an invalid list).
 */
static const struct {
	const char *text;
	const char *file;
} cpus_differences[] = {
	{ "a == CPUS{0}", "a == CPUS{0}\n            ^\nparse_error: CPUS{} is not supported by userevents\n\n" },
	{ "a == CPUS{0-1}", "a == CPUS{0-1}\n              ^\nparse_error: CPUS{} is not supported by userevents\n\n" },
	{ "CPU == CPUS{0}", "CPU == CPUS{0}\n              ^\nparse_error: CPUS{} is not supported by userevents\n\n" },
	{ "a & CPUS{99999}", "a & CPUS{99999}\n               ^\nparse_error: CPUS{} is not supported by userevents\n\n" },
	{ "a == CPUS{x}", "a == CPUS{x}\n            ^\nparse_error: CPUS{} is not supported by userevents\n\n" },
};

/* Expands the escapes above into @out; returns the length. */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (*s != '\\' || !s[1]) {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[n++] = '\n'; s++; break;
		case 't': out[n++] = '\t'; s++; break;
		case '0': out[n++] = '\0'; s++; break;
		case 'x': {
			char hex[3] = { s[1], s[2], 0 };

			out[n++] = (char)strtoul(hex, NULL, 16);
			s += 3;
			break;
		}
		case 'R': {
			char *end;
			long count = strtol(s + 1, &end, 10);

			memset(out + n, *end, (size_t)count);
			n += (size_t)count;
			s = end + 1;
			break;
		}
		default: out[n++] = *s++; break;
		}
	}
	out[n] = '\0';
	return n;
}

static size_t unhex(const char *s, unsigned char *out)
{
	size_t n = 0;

	for (; s[0] && s[1]; s += 2) {
		char hex[3] = { s[0], s[1], 0 };

		out[n++] = (unsigned char)strtoul(hex, NULL, 16);
	}
	return n;
}

/* One event's filter file as the daemon keeps it: the last shown text and the filter. */
struct filter_file {
	struct ue_event *ev;
	struct ue_filter *f;
	char *shown;
};

/* Applies a write the way ue_filter_parse() documents it; returns the errno. */
static int file_write(struct filter_file *ff, const char *text, size_t len)
{
	struct ue_filter *f;
	char *shown;
	int err = ue_filter_parse(ff->ev, text, len, &f, &shown);

	if (err && !shown)
		return -err;
	ue_filter_free(ff->f);
	free(ff->shown);
	ff->f = f;
	ff->shown = shown;
	if (err)
		EXPECT_TRUE(f == NULL);
	return -err;
}

static void file_read(const struct filter_file *ff, char *buf, size_t size)
{
	snprintf(buf, size, "%s\n", ff->shown ? ff->shown : "none");
}

TEST(reference_session)
{
	static char text[8192], expect[8192], got[8192];
	struct filter_file files[2] = { { 0 } };
	struct ue_filter_ctx ctx = { 0, NULL };
	unsigned char rec[4096];
	int bad = 0, result;

	ASSERT_EQ(ue_event_parse(FA_ARGS, &files[0].ev), 0);
	ASSERT_EQ(ue_event_parse(FB_ARGS, &files[1].ev), 0);
	for (size_t i = 0; i < sizeof(session) / sizeof(session[0]); i++) {
		struct filter_file *ff = &files[session[i].event && session[i].event[1] == 'b'];
		size_t len;

		switch (session[i].kind) {
		case STEP_COMM:
			ctx.comm = session[i].text;
			break;
		case STEP_FILTER:
			len = unescape(session[i].text, text);
			unescape(session[i].file, expect);
			result = session[i].result;
			for (size_t j = 0; j < sizeof(cpus_differences) / sizeof(cpus_differences[0]);
			     j++) {
				if (!strcmp(session[i].text, cpus_differences[j].text)) {
					unescape(cpus_differences[j].file, expect);
					result = EINVAL;
				}
			}
			EXPECT_EQ(file_write(ff, text, len), result);
			file_read(ff, got, sizeof(got));
			if (strcmp(got, expect)) {
				printf("# step %zu: %s\n", i, session[i].text);
				EXPECT_STREQ(got, expect);
				bad++;
			}
			break;
		case STEP_WRITE:
			/* The header as the kernel wrote it: id, no flags, the probe's pid. */
			memset(rec, 0, UE_ENTRY_HDR_SIZE);
			rec[0] = 0x8d;
			rec[1] = 0x01;
			rec[4] = 40;
			len = UE_ENTRY_HDR_SIZE + unhex(session[i].text, rec + UE_ENTRY_HDR_SIZE);
			if (ue_filter_match(ff->f, rec, len, &ctx) != (session[i].result == 1)) {
				printf("# step %zu: filter \"%s\" record %s: expected %d\n", i,
				       ff->shown, session[i].text, session[i].result);
				bad++;
			}
			break;
		}
	}
	EXPECT_EQ(bad, 0);
	for (int i = 0; i < 2; i++) {
		ue_filter_free(files[i].f);
		free(files[i].shown);
		ue_event_free(files[i].ev);
	}
}

/*
 * Our rule where the kernel would read outside the record: the predicate is
 * false, then the expression's '!' applies.  fa's fixed part is 53 bytes:
 * a@8 b@12 c@13 s@21 (__data_loc) r@25 (__rel_loc, from 29) d@29 ... uc@52.
 */
static const struct {
	const char *filter;
	size_t len;		/* bytes of the record given */
	uint32_t s_loc, r_loc;	/* location words; 0: "hi" at 53, "yo" at 56 */
	const char *tail;	/* the bytes from 53 on */
	bool match;
} bounds[] = {
	{ "a == 0", 53, 0, 0, "hi\\0yo", true },
	{ "a == 0", 11, 0, 0, "", false },
	{ "!(a == 0)", 11, 0, 0, "", true },
	{ "a != 1", 11, 0, 0, "", false },
	{ "uc == 0", 52, 0, 0, "", false },
	{ "uc == 0", 53, 0, 0, "", true },
	{ "c == \"\"", 20, 0, 0, "", false },
	{ "c == \"\"", 21, 0, 0, "", true },
	{ "s == \"hi\"", 59, 0, 0, "hi\\0yo", true },
	{ "s == \"hi\"", 24, 0, 0, "", false },
	{ "s == \"hi\"", 55, 3u << 16 | 53, 0, "hi", false },
	{ "s != \"hi\"", 55, 3u << 16 | 53, 0, "hi", false },
	{ "!(s == \"hi\")", 55, 3u << 16 | 53, 0, "hi", true },
	{ "s != \"hi\"", 59, 3u << 16 | 0xffff, 0, "hi\\0yo", false },
	{ "s ~ \"*\"", 59, 3u << 16 | 56, 0, "hi\\0yo", true },
	{ "s ~ \"*\"", 59, 4u << 16 | 56, 0, "hi\\0yo", false },
	{ "r == \"yo\"", 59, 0, 0, "hi\\0yo", true },
	{ "r == \"yo\"", 58, 0, 0, "hi\\0yo", false },
	{ "r == \"yo\"", 28, 0, 0, "", false },
	/* Length 0: up to the NUL, which must lie inside the record... */
	{ "s == \"hi\"", 56, 53, 0, "hi\0", true },
	{ "s == \"hi\"", 55, 53, 0, "hi", false },
	{ "s ~ \"*i*\"", 55, 53, 0, "hi", false },
	{ "s ~ \"*i*\"", 56, 53, 0, "hi\0", true },
	/* ...unless the kernel would stop reading before it. */
	{ "s == \"x\"", 55, 53, 0, "hi", false },
	{ "s ~ \"h*\"", 55, 53, 0, "hi", true },
	{ "s ~ \"hi*\"", 54, 53, 0, "h", false },
	{ "s ~ \"*\"", 54, 0xffff, 0, "h", false },
	{ "s ~ \"h?\"", 54, 0xffff, 0, "h", false },
	{ "s ~ \"**\"", 54, 0xffff, 0, "h", true },
	{ "s ~ \"*\"", 54, 1u << 16 | 0xffff, 0, "h", false },
	{ "CPU == 0 && COMM == \"\"", 0, 0, 0, "", true },
	{ "common_pid == 40", 8, 0, 0, "", true },
	{ "common_pid == 40", 7, 0, 0, "", false },
};

TEST(outside_the_record)
{
	struct ue_event *ev;
	unsigned char rec[128];
	char tail[64];

	ASSERT_EQ(ue_event_parse(FA_ARGS, &ev), 0);
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		struct ue_filter *f;
		char *shown;
		unsigned char *copy;
		size_t n = unescape(bounds[i].tail, tail);
		uint32_t s_loc = bounds[i].s_loc ? bounds[i].s_loc : 3u << 16 | 53;
		uint32_t r_loc = bounds[i].r_loc ? bounds[i].r_loc : 3u << 16 | (56 - 29);

		memset(rec, 0, sizeof(rec));
		rec[4] = 40;
		memcpy(rec + 21, &s_loc, 4);
		memcpy(rec + 25, &r_loc, 4);
		memcpy(rec + 53, tail, n);
		ASSERT_EQ(ue_filter_parse(ev, bounds[i].filter, strlen(bounds[i].filter), &f,
					  &shown), 0);
		/* An exact-size copy, so that ASan sees any read past the end. */
		copy = malloc(bounds[i].len ? bounds[i].len : 1);
		ASSERT_TRUE(copy != NULL);
		memcpy(copy, rec, bounds[i].len);
		if (ue_filter_match(f, copy, bounds[i].len, NULL) != bounds[i].match) {
			printf("# %s on %zu bytes: expected %d\n", bounds[i].filter, bounds[i].len,
			       bounds[i].match);
			ue_test_failed = 1;
		}
		free(copy);
		ue_filter_free(f);
		free(shown);
	}
	ue_event_free(ev);
}

TEST(results_and_ownership)
{
	static char big[UE_FILTER_MAX_WRITE];
	struct ue_filter *f = (struct ue_filter *)1;
	char *shown = (char *)1;
	struct ue_event *ev;

	ASSERT_EQ(ue_event_parse(FA_ARGS, &ev), 0);
	/* Cleared: both NULL. */
	ASSERT_EQ(ue_filter_parse(ev, " 0 \n", 4, &f, &shown), 0);
	EXPECT_TRUE(f == NULL && shown == NULL);
	/* A page or more: refused before parsing, nothing to show. */
	memset(big, ' ', sizeof(big));
	ASSERT_ERRNO(ue_filter_parse(ev, big, sizeof(big), &f, &shown), EINVAL);
	EXPECT_TRUE(f == NULL && shown == NULL);
	/* One byte less is parsed (white space only: the kernel's "Error: (0)"). */
	ASSERT_ERRNO(ue_filter_parse(ev, big, sizeof(big) - 1, &f, &shown), EINVAL);
	EXPECT_TRUE(f == NULL);
	EXPECT_STREQ(shown, "\nError: (0)\n");
	free(shown);
	/* No text at all. */
	ASSERT_ERRNO(ue_filter_parse(ev, NULL, 0, &f, &shown), EINVAL);
	EXPECT_STREQ(shown, "\nError: (0)\n");
	free(shown);
	ASSERT_EQ(ue_filter_parse(ev, "a == 1\n", 7, &f, &shown), 0);
	EXPECT_TRUE(f != NULL);
	EXPECT_STREQ(shown, "a == 1");
	ue_filter_free(f);
	free(shown);
	/* No filter passes everything. */
	EXPECT_TRUE(ue_filter_match(NULL, NULL, 0, NULL));
	ue_filter_free(NULL);
	ue_event_free(ev);
}

/*
 * The event's fields are searched last declared first, before the generic
 * and common fields: the reference session shows "x", "cpu", "COMM" and
 * "common_pid" of fb resolving to the event's own u32 fields, and on the
 * reference kernel "fdup u32 x;u32 x" with "x == 2" kept the record
 * x=1, x=2 and dropped x=2, x=1.
 */
TEST(duplicate_names)
{
	struct ue_event *ev;
	struct ue_filter *f;
	char *shown;
	unsigned char rec[36] = { 0 };

	ASSERT_EQ(ue_event_parse(FB_ARGS, &ev), 0);
	rec[16] = 1;	/* the first x */
	rec[20] = 2;	/* the second x */
	ASSERT_EQ(ue_filter_parse(ev, "x == 2", 6, &f, &shown), 0);
	EXPECT_TRUE(ue_filter_match(f, rec, sizeof(rec), NULL));
	ue_filter_free(f);
	free(shown);
	ue_event_free(ev);
}

/* The reference kernel after "z == 1" was written to events/user_events/filter (fa has no z). */
TEST(subsystem_error)
{
	char *shown = ue_filter_subsystem_error("z == 1\n", 7);

	EXPECT_STREQ(shown,
		     "z == 1\n^\nparse_error: Couldn't find or set field in one of a subsystem's events\n");
	free(shown);
	shown = ue_filter_subsystem_error("a == 3 && z == 1", 16);
	EXPECT_STREQ(shown, "a == 3 && z == 1\n^\nparse_error: Couldn't find or set field in one of "
			    "a subsystem's events\n");
	free(shown);
}

/*
 * ue_filter_check(): the syntax alone.  Never stricter than an event: of the
 * reference session's filters, each that fa or fb took passes the check
 * (what the check refuses, the event refuses, maybe for an earlier field).
 */
TEST(check_never_stricter)
{
	static char text[8192];
	struct ue_event *ev[2];
	int bad = 0;

	ASSERT_EQ(ue_event_parse(FA_ARGS, &ev[0]), 0);
	ASSERT_EQ(ue_event_parse(FB_ARGS, &ev[1]), 0);
	for (size_t i = 0; i < sizeof(session) / sizeof(session[0]); i++) {
		struct ue_filter *f = NULL;
		char *shown = NULL, *msg = NULL;
		size_t len;
		int r, c;

		if (session[i].kind != STEP_FILTER)
			continue;
		len = unescape(session[i].text, text);
		r = ue_filter_parse(ev[session[i].event[1] == 'b'], text, len, &f, &shown);
		c = ue_filter_check(text, len, &msg);
		if (r == 0 && c != 0) {
			printf("# step %zu: %s: event %d, check %d (%s)\n", i, session[i].text, r, c,
			       msg ? msg : "-");
			bad++;
		}
		/* A refusal with no text only where the event's had none either. */
		if (c && !msg && shown) {
			printf("# step %zu: %s: the check gave no reason\n", i, session[i].text);
			bad++;
		}
		ue_filter_free(f);
		free(shown);
		free(msg);
	}
	EXPECT_EQ(bad, 0);
	ue_event_free(ev[0]);
	ue_event_free(ev[1]);
}

/* What it refuses, it says as a filter file would, with a reason where the kernel gives none. */
TEST(check_messages)
{
	static const struct {
		const char *text;
		int err;
		const char *msg;
	} cases[] = {
		/* Fields of no event: any name, any type its operand needs. */
		{ "nosuch == 1", 0, NULL },
		{ "seq > 5 && name ~ \"web*\" || !(x & 4)", 0, NULL },
		{ "COMM == 3 && cpu == \"x\" && v == -5 && u == 18446744073709551615", 0, NULL },
		/* The kernel's tracefs may take these (usereventsd refuses them per event). */
		{ "ip.function == 0x1234", 0, NULL },
		{ "mask & CPUS{1-3}", 0, NULL },
		{ "0", 0, NULL },
		{ "seq > 5 &&& ", EPERM, "seq > 5 &&&\n          ^\nparse_error: Expecting a field name\n" },
		{ "&&", EPERM, "&&\n^\nparse_error: Expecting a field name\n" },
		{ "   ", EINVAL, "\n^\nparse_error: No filter found\n" },
		{ "seq = 5", EINVAL, "seq = 5\n     ^\nparse_error: Invalid operator\n" },
		{ "seq > 5 &&", EINVAL,
		  "seq > 5 &&\n          ^\nparse_error: Meaningless filter expression\n" },
		{ "(seq > 5", ENOENT, "(seq > 5\n^\nparse_error: Too many '('\n" },
		{ "s == \"abc", ESRCH, "s == \"abc\n     ^\nparse_error: Missing matching quote\n" },
		{ "n == 12abc", EINVAL, "n == 12abc\n      ^\nparse_error: Illegal integer value\n" },
		{ "n ~ 1", EINVAL, "n ~ 1\n     ^\nparse_error: Illegal operation for field type\n" },
		{ "s < \"x\"", EINVAL,
		  "s < \"x\"\n     ^\nparse_error: Illegal operation for field type\n" },
		{ "mask & CPUS{}", EINVAL, "mask & CPUS{}\n             ^\nparse_error: Invalid cpulist\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *msg = (char *)1;
		int r = ue_filter_check(cases[i].text, strlen(cases[i].text), &msg);

		if (r != -cases[i].err)
			printf("# %s\n", cases[i].text);
		EXPECT_EQ(r, -cases[i].err);
		if (cases[i].msg) {
			EXPECT_STREQ(msg, cases[i].msg);
		} else {
			EXPECT_TRUE(msg == NULL);
		}
		free(msg);
	}
}

UE_TEST_MAIN()
