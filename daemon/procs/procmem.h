/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * procmem: what the daemon learns of another process through /proc.  A
 * handle on the memory of one process that cannot follow its pid to another
 * program, the identity (tgid, start time) that lets threads of one process
 * share a handle, and whether a caller holds the capabilities
 * perfmon_capable() asks for.  Used by the enablers to flip enable bits and
 * by the request handlers to read their callers' arguments.
 *
 * A seam: procmem.c is a library of its own (procs/meson.build), which the
 * request-handler fuzzers replace with an image in a buffer
 * (fuzz/handler-fakes.c implements every function declared here).
 */
#ifndef UE_DAEMON_PROCMEM_H
#define UE_DAEMON_PROCMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Who a process is, as far as /proc tells: two registrations share a handle
 * only when all three fields are equal.  start_time has a resolution of one
 * clock tick, so a pid reused within the same tick looks the same; that case
 * is caught by ue_procmem_alive() on the old handle (its memory is gone),
 * which the enablers check before reusing a handle.  start_stack is the
 * address-space's stack start: exec keeps pid and start time but, with
 * ASLR, not this.
 */
struct ue_procmem_id {
	pid_t tgid;	      /* Tgid: of /proc/<tid>/status */
	uint64_t start_time;  /* field 22 of /proc/<tgid>/stat (clock ticks after boot) */
	uint64_t start_stack; /* field 28 of /proc/<tgid>/stat (0 when hidden) */
};

/*
 * A process's memory.  Two file descriptors opened while the process is
 * known to be alive (its thread is blocked in our ioctl): /proc/<tid>/mem
 * for reading and writing and /proc/<tid>/maps for protections.  Both pin
 * the address space (mm) that existed at open time: once the process execs
 * or exits, reads and writes through them transfer nothing (ue_procmem_*
 * then return -ESRCH) instead of touching a new program, even when the pid
 * is reused.
 *
 * Atomicity (a known difference from the kernel): the kernel sets or clears
 * an enable bit with an atomic set_bit on the word.  Through /proc/<pid>/mem
 * we can only read the byte that holds the bit and write it back, so when
 * the program itself changes *another bit of that same byte* between our
 * read and our write, its change is lost.  Programs that keep one enable bit
 * per byte (or per word, the common case) are not affected.
 *
 * Protections: /proc/<pid>/mem writes with FOLL_FORCE on most kernels
 * (CONFIG_PROC_MEM_ALWAYS_FORCE), so it would write into read-only
 * mappings, which the kernel's user_events never does.  Every write is
 * therefore preceded by a protection check of the target address
 * (PROCMAP_QUERY on Linux 6.11+, else a scan of the maps text): a mapping
 * without write permission is refused with -EFAULT.  The check and the write
 * are two steps: an mprotect() by the program between them is not seen.
 *
 * A handle is used by one thread at a time for writes (the enablers hold a
 * per-process lock); ue_procmem_alive() and reads may run concurrently.
 */
struct ue_procmem;

/**
 * ue_procmem_identify - identify the process a thread belongs to
 * @tid: any thread of the process, alive
 * @ret_id: its identity
 *
 * Return: 0; -ESRCH when the thread or its process is gone; -errno when
 * /proc cannot be read.  @ret_id is untouched on failure.
 */
int ue_procmem_identify(pid_t tid, struct ue_procmem_id *ret_id);

/** ue_procmem_id_equal - whether two identities name the same process */
bool ue_procmem_id_equal(const struct ue_procmem_id *a, const struct ue_procmem_id *b);

/**
 * ue_procmem_open - open a handle on the memory of @tid's process
 * @tid: a thread that is alive and cannot exec or exit meanwhile (blocked
 *       in a request we are serving)
 * @ret_pm: the new handle (release with ue_procmem_close())
 *
 * Return: 0; -ESRCH when the thread is gone or its process exec'd while we
 * opened it; -EMFILE / -ENFILE / -ENOMEM / -EACCES as open(2) fails.
 */
int ue_procmem_open(pid_t tid, struct ue_procmem **ret_pm);

/**
 * ue_procmem_dup - a second handle on the same memory
 * @pm: the handle
 * @ret_pm: the copy (release with ue_procmem_close())
 *
 * Duplicates the descriptors: the copy pins the very address space @pm
 * pins (no path is looked up again, so it cannot name another program) and
 * has @pm's identity.  For a user of its own (the enablers' writer
 * threads) beside the request that opened @pm.
 *
 * Return: 0; -EMFILE / -ENFILE / -ENOMEM as dup(2) fails.
 */
int ue_procmem_dup(const struct ue_procmem *pm, struct ue_procmem **ret_pm);

/** ue_procmem_close - close a handle (NULL is ignored) */
void ue_procmem_close(struct ue_procmem *pm);

/*
 * ue_procmem_fds - the handle's descriptors (still the handle's), for a
 * state snapshot; ue_procmem_adopt - a handle made of descriptors a
 * predecessor opened and proved (taken: closed with the handle, or on
 * failure), with the identity it read then.  Return: 0 or -ENOMEM.
 */
void ue_procmem_fds(const struct ue_procmem *pm, int *ret_mem_fd, int *ret_maps_fd,
		    bool *ret_text_maps);
int ue_procmem_adopt(int mem_fd, int maps_fd, bool text_maps, const struct ue_procmem_id *id,
		     struct ue_procmem **ret_pm);

/** ue_procmem_get_id - the identity read when the handle was opened */
const struct ue_procmem_id *ue_procmem_get_id(const struct ue_procmem *pm);

/**
 * ue_procmem_alive - whether the memory the handle pins is still in use
 * @pm: the handle
 *
 * Return: 1 while the process runs the program it ran at open time; 0 once
 * it exited or exec'd (the handle will never work again); -errno on an
 * unexpected error.
 */
int ue_procmem_alive(struct ue_procmem *pm);

/**
 * ue_procmem_writable - whether the process may write to @addr itself
 * @pm: the handle
 * @addr: an address in the process
 *
 * Return: 0 when a mapping with write permission covers @addr; -EFAULT when
 * none does (unmapped, read-only, PROT_NONE); -ESRCH when the process is
 * gone; -errno on an unexpected error.
 */
int ue_procmem_writable(struct ue_procmem *pm, uint64_t addr);

/**
 * ue_procmem_read_byte - read one byte of the process's memory
 * @pm: the handle
 * @addr: the address
 * @ret_val: the byte
 *
 * No protection check: reads follow /proc/<pid>/mem rules.
 *
 * Return: 0; -ESRCH when the process is gone; -EIO when the address cannot
 * be accessed now (unmapped, or a fault the kernel would not resolve for a
 * remote access, e.g. a userfaultfd-registered missing page).
 */
int ue_procmem_read_byte(struct ue_procmem *pm, uint64_t addr, uint8_t *ret_val);

/**
 * ue_procmem_read - read bytes of the process's memory
 * @pm: the handle
 * @addr: where from
 * @buf: where to
 * @len: how many
 *
 * Like copy_from_user(): stops at the first address that cannot be read.
 * No protection check: reads follow /proc/<pid>/mem rules.
 *
 * Return: the bytes read (fewer than @len when a fault stopped it), or
 * -ESRCH when the process is gone, -EIO when not even the first byte can be
 * read, -EFAULT when the range wraps around.
 */
ssize_t ue_procmem_read(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len);

/**
 * ue_procmem_read_user - read bytes as the process's own load would
 * @pm: the handle
 * @addr: where from
 * @buf: where to
 * @len: how many
 *
 * ue_procmem_read() stopped where the process itself would fault: at an
 * unmapped address or a mapping its CPU cannot load from (PROT_NONE; on
 * x86 PROT_WRITE and PROT_EXEC mappings are readable), checked through the
 * maps before and after the read, so a mapping changed meanwhile is read
 * again (a few times, then -EFAULT).  For memory a client hands to an ioctl
 * (copy_from_user()).
 *
 * Return: the bytes read (fewer than @len when a fault stopped it), -EFAULT
 * when not even the first byte can be loaded, -ESRCH when the process is
 * gone, -errno on an unexpected error.
 */
ssize_t ue_procmem_read_user(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len);

/**
 * ue_procmem_write_byte - write one byte of the process's memory, unchecked
 * @pm: the handle
 * @addr: the address
 * @val: the byte
 *
 * Does NOT check protections (see ue_procmem_update_bit()); meant for tests
 * and callers that checked already.
 *
 * Return: 0; -ESRCH when the process is gone; -EIO when the address cannot
 * be accessed now.
 */
int ue_procmem_write_byte(struct ue_procmem *pm, uint64_t addr, uint8_t val);

/**
 * ue_procmem_update_bit - set or clear one bit of one byte, if writable
 * @pm: the handle
 * @addr: the byte
 * @bit: the bit in that byte, 0..7
 * @set: true to set it, false to clear it
 *
 * Checks the protection, reads the byte and writes it back with the bit
 * changed (nothing is written when the bit already has the value).  See the
 * atomicity note above.
 *
 * Return: 0; -EFAULT when @addr is not writable for the process; -ESRCH
 * when the process is gone; -EIO (or another -errno) when the access failed
 * although the mapping allows it (worth retrying: the kernel faults such
 * pages in asynchronously); -EINVAL when @bit > 7.
 */
int ue_procmem_update_bit(struct ue_procmem *pm, uint64_t addr, unsigned int bit, bool set);

/* The mapping that covers an address, as /proc/<pid>/maps shows it. */
#define UE_VMA_READ   0x1
#define UE_VMA_WRITE  0x2
#define UE_VMA_EXEC   0x4
#define UE_VMA_SHARED 0x8
struct ue_procmem_vma {
	uint64_t start;
	uint64_t end;
	unsigned int flags;	/* UE_VMA_* */
	uint64_t offset;	/* in the file; 0 for anonymous memory */
	uint64_t inode;		/* 0 for anonymous memory */
	unsigned int dev_major;
	unsigned int dev_minor;
};

/**
 * ue_procmem_vma - the mapping of the handle's memory that covers @addr
 * @pm: the handle
 * @addr: an address in the process
 * @ret_vma: the mapping
 *
 * Return: 0; -EFAULT when nothing is mapped there; -ESRCH when the process
 * is gone; -errno on an unexpected error.
 */
int ue_procmem_vma(struct ue_procmem *pm, uint64_t addr, struct ue_procmem_vma *ret_vma);

/**
 * ue_procmem_use_text_maps - check protections by scanning the maps text
 * @pm: the handle
 *
 * What the handle falls back to by itself when PROCMAP_QUERY is missing
 * (Linux before 6.11); lets tests cover that path on newer kernels.
 */
void ue_procmem_use_text_maps(struct ue_procmem *pm);

/**
 * ue_caller_capable - perfmon_capable() for the thread that sent a request
 * @tid: the thread (fuse_req_ctx()->pid)
 *
 * Return: true when its effective capabilities hold CAP_PERFMON or CAP_SYS_ADMIN
 * and it is in the daemon's user namespace (a user namespace's root has no
 * capability over the daemon's, as perfmon_capable() checks the initial one).
 */
bool ue_caller_capable(pid_t tid);

#endif /* UE_DAEMON_PROCMEM_H */
