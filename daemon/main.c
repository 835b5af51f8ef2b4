// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * usereventsd: the command line, the mount and the life of the daemon.
 * Mounts first, then detaches (unless -f), so the mount is usable as soon as
 * the command returns; prints nothing on success; SIGINT/SIGTERM/SIGHUP or
 * an unmount end it cleanly.  What is checked of the mount point and the
 * system before the mount is mountpoint.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "fs.h"
#include "native.h"
#include "proc-events.h"
#include "counts.h"
#include "tasks.h"
#include "upgrade.h"
#include "checkpoint.h"
#include "keeper.h"
#include "mountpoint.h"

#define DEFAULT_MAX_THREADS 16
/* How often enablers of exited processes are looked for. */
#define SWEEP_INTERVAL_MS 500
/* After a restart: how long producers have to come back before their events may go. */
#define RESTART_GRACE_MS 5000

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " UE_DAEMON_NAME " [-f] [-d] [-o OPTION[,OPTION...]] [--replace]\n"
		"       [--exit-with-parent] [--rmdir] MOUNTPOINT\n"
		"       " UE_DAEMON_NAME " --upgrade [-f] [-d] MOUNTPOINT\n"
		"       " UE_DAEMON_NAME " --keep [-f] [-d] [-o OPTION[,OPTION...]] [--replace] MOUNTPOINT\n"
		"\n"
		"Serves Linux user_events from user space: mounts a tracefs-like file\n"
		"system on MOUNTPOINT (usually /sys/kernel/tracing in a private mount\n"
		"namespace) where unmodified user_events programs register and write events.\n"
		"\n"
		"  -f                   stay in the foreground\n"
		"  -d                   print every FUSE request (implies -f)\n"
		"  -o OPTIONS           comma-separated options:\n"
		"       uid=N, gid=N    owner of every file (default: the daemon's own\n"
		"                       uid and gid: 0, 0 as root)\n"
		"       mode=OCTAL      mode of the mount's root directory (default: 0700)\n"
		"       max_events=N    most events at a time (default: %u, as\n"
		"                       kernel.user_events_max); more fail with EMFILE\n"
		"       buffer_size_kb=N  trace ring size per CPU (default: %u)\n"
		"       threads=N       most FUSE worker threads (default: %u)\n"
		"       max_files=N     most files open on the mount at a time (default:\n"
		"                       %u); more fail with EMFILE\n"
		"       max_text_mb=N   most MiB all text snapshots (trace, status...)\n"
		"                       may hold (default: %u); more fail with ENOMEM\n"
		"       max_enablers=N  most enable bits one process may register\n"
		"                       (default: %u); more fail with ENOMEM\n"
		"       max_enabler_processes=N  most processes with enable bits at a\n"
		"                       time (default: %u); more fail with ENOMEM\n"
		"       max_file_events=N  most events one open user_events_data may\n"
		"                       hold (default: %u); more fail with ENOMEM\n"
		"       owner_only      only the user who created an event (or a caller\n"
		"                       with CAP_PERFMON) may register it again or\n"
		"                       delete it; others get EPERM (default: anyone, as\n"
		"                       the kernel)\n"
		"       other options go to FUSE (e.g. allow_other, which is set when root)\n"
		"  --replace            detach a usereventsd already mounted on MOUNTPOINT\n"
		"                       (refused otherwise: its events would be hidden)\n"
		"  --exit-with-parent   end, unmounting, when the process that started it\n"
		"                       ends, however it ends (implies -f)\n"
		"  --rmdir              remove MOUNTPOINT (an empty directory) at the end\n"
		"  --upgrade            take over the usereventsd serving MOUNTPOINT without\n"
		"                       unmounting: its events, open files, sessions,\n"
		"                       enable bits, options and unread records (its own\n"
		"                       -o options; usereventsd(8), UPGRADE)\n"
		"  --keep               keep the mount through a crash: a keeper process\n"
		"                       holds the connection and the daemon's checkpoint\n"
		"                       and starts a new daemon at once when it dies\n"
		"                       (systemd does it for the unit; usereventsd(8),\n"
		"                       RESTART)\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n",
		UE_REGISTRY_DEFAULT_MAX_EVENTS, UE_DEFAULT_BUFFER_KB, DEFAULT_MAX_THREADS,
		UE_DEFAULT_MAX_FILES, UE_DEFAULT_MAX_TEXT_MB, UE_ENABLERS_DEFAULT_MAX_PER_PROCESS,
		UE_ENABLERS_DEFAULT_MAX_PROCESSES, UE_DEFAULT_MAX_FILE_EVENTS);
}

static int parse_uint(const char *s, int base, unsigned long max, unsigned long *ret)
{
	char *end;
	unsigned long v;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || *end || v > max || *s == '-')
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Take our options out of one -o list; the rest is appended to @fuse_opts. */
static int parse_opts(const char *list, struct ue_daemon_opts *o, char *fuse_opts, size_t len)
{
	char *copy = strdup(list), *save = NULL, *opt;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (opt = strtok_r(copy, ",", &save); opt && !err; opt = strtok_r(NULL, ",", &save)) {
		const char *eq = strchr(opt, '=');
		const char *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
		unsigned long v;

#define KEY(k) (klen == sizeof(k) - 1 && strncmp(opt, k, klen) == 0)
		if (KEY("uid")) {
			err = parse_uint(val, 10, UINT_MAX - 1, &v);
			o->uid = (uid_t)v;
		} else if (KEY("gid")) {
			err = parse_uint(val, 10, UINT_MAX - 1, &v);
			o->gid = (gid_t)v;
		} else if (KEY("mode")) {
			err = parse_uint(val, 8, 07777, &v);
			o->root_mode = (mode_t)v;
		} else if (KEY("max_events")) {
			err = parse_uint(val, 10, UINT_MAX, &v);
			if (!err && v == 0)
				err = -EINVAL;
			o->max_events = (unsigned int)v;
		} else if (KEY("buffer_size_kb")) {
			err = parse_uint(val, 10, (size_t)UE_BUFFER_MAX_TOTAL_BYTES >> 10, &v);
			if (!err && v == 0)
				err = -EINVAL;
			o->buffer_kb = v;
		} else if (KEY("max_files")) {
			err = parse_uint(val, 10, UINT_MAX, &v);
			if (!err && v == 0)
				err = -EINVAL;
			o->max_files = (unsigned int)v;
		} else if (KEY("max_text_mb")) {
			err = parse_uint(val, 10, SIZE_MAX >> 21, &v);
			if (!err && v == 0)
				err = -EINVAL;
			o->max_text_bytes = (size_t)v << 20;
		} else if (KEY("max_enablers") || KEY("max_enabler_processes") ||
			   KEY("max_file_events")) {
			err = parse_uint(val, 10, UINT_MAX, &v);
			if (!err && v == 0)
				err = -EINVAL;
			if (KEY("max_enablers"))
				o->max_enablers = (unsigned int)v;
			else if (KEY("max_enabler_processes"))
				o->max_enabler_processes = (unsigned int)v;
			else
				o->max_file_events = (unsigned int)v;
		} else if (KEY("owner_only") && !eq) {
			o->owner_only = true;
		} else if (KEY("threads")) {
			err = parse_uint(val, 10, 1024, &v);
			if (!err && v == 0)
				err = -EINVAL;
			o->max_threads = (unsigned int)v;
		} else {
			size_t used = strlen(fuse_opts);

			if (used + strlen(opt) + 2 > len) {
				err = -E2BIG;
				break;
			}
			if (used)
				strcat(fuse_opts, ",");
			strcat(fuse_opts, opt);
		}
#undef KEY
		if (err == -EINVAL)
			fprintf(stderr, UE_DAEMON_NAME ": bad value in option '%s'\n", opt);
	}
	free(copy);
	return err;
}

/*
 * Our mount in the daemon's own mount namespace.  An unmount there ends the
 * daemon only when it was the file system's last mount: a copy made when
 * another mount namespace was created (unshare -m, a container, a unit's
 * private mounts) keeps the kernel's connection, and the daemon serving it,
 * as long as that copy lives (and a lazy unmount, while files are open).
 * The daemon then says so once, so that nobody wonders why it is still
 * there; it goes on serving those who use it.
 */
struct mount_watch {
	char real[PATH_MAX];		/* the mount point, resolved before the mount */
	char dev[32];			/* our mount's major:minor in mountinfo, once found */
	int missing;			/* checks in a row that found no line of it */
	bool told, foreground;
};

/* Every MOUNT_WATCH_SWEEPS sweeps: whether our mount is still in our namespace. */
#define MOUNT_WATCH_SWEEPS 4

static void mount_watch(struct mount_watch *w)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192], dev[32], top[32] = "";
	bool here = false;

	if (!f || w->told)
		goto out;
	while (fgets(line, sizeof(line), f)) {
		struct ue_mount_entry m;

		if (sscanf(line, "%*s %*s %31s", dev) != 1 || ue_mountinfo_split(line, &m) < 0)
			continue;
		here |= w->dev[0] && strcmp(dev, w->dev) == 0;
		ue_mountinfo_unescape(m.mount_point);
		/* The last usereventsd line of the mount point: the one on top, ours. */
		if (!w->dev[0] && ue_mount_is_usereventsd(&m) && strcmp(m.mount_point, w->real) == 0)
			snprintf(top, sizeof(top), "%s", dev);
	}
	if (!w->dev[0]) {
		snprintf(w->dev, sizeof(w->dev), "%s", top);
		goto out;
	}
	/* Twice: the unmount that ends us (the last mount) is not worth a word. */
	w->missing = here ? 0 : w->missing + 1;
	if (w->missing < 2)
		goto out;
	w->told = true;
	fprintf(stderr,
		UE_DAEMON_NAME ": %s was unmounted here but is still mounted in another mount "
			       "namespace (or open after a lazy unmount): serving it until that goes "
			       "(SIGTERM ends it now)\n",
		w->real);
	if (!w->foreground)
		syslog(LOG_NOTICE,
		       "%s was unmounted here but is still mounted in another mount namespace (or "
		       "open after a lazy unmount): serving it until that goes (SIGTERM ends it now)",
		       w->real);
out:
	if (f)
		fclose(f);
}

struct sweeper {
	struct ue_daemon *d;
	struct ue_mutex lock;
	pthread_cond_t cond;
	bool stop;
	pthread_t thread;
	struct mount_watch watch;
	/*
	 * After a restart: the checkpoint's references on events go this
	 * long after it (ms), once their producers had the time to come back
	 * (lib/reconnect.c) and hold them again; 0: none.
	 */
	unsigned int restore_done_ms;
};

/* Releases the references of processes that exited without unregistering. */
static void *sweep_thread(void *arg)
{
	struct sweeper *s = arg;
	struct timespec t;
	unsigned int n = 0, waited = 0;

	ue_mutex_lock(&s->lock);
	while (!s->stop) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += SWEEP_INTERVAL_MS * 1000000L;
		while (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		ue_cond_timedwait(&s->cond, &s->lock, &t);
		if (s->stop)
			break;
		ue_mutex_unlock(&s->lock);
		ue_enablers_sweep(s->d->enablers);
		waited += SWEEP_INTERVAL_MS;
		if (s->restore_done_ms && waited >= s->restore_done_ms) {
			s->restore_done_ms = 0;
			ue_registry_restore_done(s->d->reg);
			ue_state_changed(s->d);
		}
		/* Our line is looked for at once, then looked at now and then. */
		if (!s->watch.dev[0] || ++n % MOUNT_WATCH_SWEEPS == 0)
			mount_watch(&s->watch);
		ue_mutex_lock(&s->lock);
	}
	ue_mutex_unlock(&s->lock);
	return NULL;
}

static int sweeper_start(struct sweeper *s, struct ue_daemon *d)
{
	pthread_condattr_t ca;
	int r;

	s->d = d;
	s->stop = false;
	ue_mutex_init(&s->lock, UE_LOCK_SWEEPER);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&s->thread, NULL, sweep_thread, s);
	return -r;
}

static void sweeper_stop(struct sweeper *s)
{
	ue_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cond);
	ue_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	ue_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "replace", no_argument, NULL, 'R' },
		{ "exit-with-parent", no_argument, NULL, 'P' },
		{ "rmdir", no_argument, NULL, 'D' },
		{ "upgrade", no_argument, NULL, 'U' },
		{ "keep", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	struct ue_daemon_opts opts = {
		/* Unprivileged, only the files' owner can reach its own mount (no allow_other). */
		.uid = geteuid(),
		.gid = getegid(),
		.root_mode = 0700,
		.buffer_kb = UE_DEFAULT_BUFFER_KB,
		.max_threads = DEFAULT_MAX_THREADS,
		.max_files = UE_DEFAULT_MAX_FILES,
		.max_text_bytes = (size_t)UE_DEFAULT_MAX_TEXT_MB << 20,
	};
	struct ue_registry_opts ropts = { 0 };
	struct ue_enablers_opts eopts = { .sz = sizeof(eopts) };
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_loop_config *loop = NULL;
	char fuse_opts[4096] = "", *all_opts = NULL;
	struct ue_daemon *d = NULL;
	struct ue_native_server *nat = NULL;
	struct sweeper sweeper;
	bool sweeping = false, mounted = false, signals = false;
	bool replace = false, with_parent = false, remove_dir = false, upgrade = false;
	bool adopted = false, keep = false, restart, taking;
	struct ue_taken taken;
	int kept_fuse = -1, kept_state = -1;
	pid_t parent = getppid();
	const char *mountpoint;
	long ncpus;
	int c, r, status = EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "fdo:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opts.foreground = true;
			break;
		case 'd':
			opts.debug = true;
			opts.foreground = true;
			break;
		case 'o':
			if (parse_opts(optarg, &opts, fuse_opts, sizeof(fuse_opts)) < 0)
				return EXIT_FAILURE;
			break;
		case 'R':
			replace = true;
			break;
		case 'P':
			with_parent = true;
			opts.foreground = true;
			break;
		case 'D':
			remove_dir = true;
			break;
		case 'U':
			upgrade = true;
			break;
		case 'K':
			keep = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			printf(UE_DAEMON_NAME " " UE_VERSION "\n");
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	mountpoint = argv[optind];
	if (upgrade && (replace || with_parent || remove_dir || fuse_opts[0] || keep)) {
		fprintf(stderr, UE_DAEMON_NAME ": --upgrade takes the options of the daemon it replaces\n");
		return 2;
	}
	if (keep && with_parent) {
		fprintf(stderr, UE_DAEMON_NAME ": --keep outlives its daemon: not with --exit-with-parent\n");
		return 2;
	}
	if (keep)
		return ue_keeper_run(argc, argv);
	ue_taken_init(&taken);
	/* Started again by a keeper after a crash: the same mount, from its checkpoint. */
	restart = !upgrade && ue_keeper_listen_fds(&kept_fuse, &kept_state);
	taking = upgrade || restart;
	if (restart) {
		bool fg = opts.foreground, debug = opts.debug;

		r = kept_state >= 0 ? ue_ckpt_take(kept_state, &taken) : -ENOENT;
		taken.fuse_fd = kept_fuse;
		if (r < 0) {
			fprintf(stderr, UE_DAEMON_NAME ": %s: no checkpoint to restart from (%s)\n",
				mountpoint, strerror(-r));
			/* The keeper lets the connection go: the next start mounts anew. */
			ue_keeper_let_go(getenv("NOTIFY_SOCKET"));
			ue_taken_free(&taken);
			if (kept_state >= 0)
				close(kept_state);
			return EXIT_FAILURE;
		}
		opts = taken.opts;
		opts.foreground = fg;
		opts.debug = debug;
	} else if (upgrade) {
		bool fg = opts.foreground, debug = opts.debug;

		if (ue_mountpoint_proc_ours() < 0 || ue_upgrade_receive(mountpoint, &taken) < 0)
			return EXIT_FAILURE;
		opts = taken.opts;
		opts.foreground = fg;
		opts.debug = debug;
	}
	if (taking) {
		if (ue_mountpoint_proc_ours() < 0)
			return EXIT_FAILURE;
	} else if (ue_mountpoint_proc_ours() < 0 || ue_mountpoint_check(mountpoint, replace) < 0) {
		if (remove_dir)
			rmdir(mountpoint);
		return EXIT_FAILURE;
	}
	/* Resolved now: after the mount it is ours to answer. */
	memset(&sweeper.watch, 0, sizeof(sweeper.watch));
	if (!realpath(mountpoint, sweeper.watch.real))
		snprintf(sweeper.watch.real, sizeof(sweeper.watch.real), "%s", mountpoint);

	/*
	 * A descriptor per ring, channel and session of the native path, kept
	 * for a successor (--upgrade): as many as the hard limit allows.
	 */
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto oom;
	d->opts = opts;
	atomic_init(&d->buffer_kb, opts.buffer_kb);
	atomic_init(&d->trace_flags, ue_trace_flags_default());
	d->ctl_sock = -1;
	d->ctl_stop = -1;
	atomic_init(&d->upgrade_conn, -1);
	d->taken_procev = -1;
	d->ckpt_wake = -1;
	d->fh_epoch = 1;	/* a successor's comes from its predecessor (upgrade.c) */
	pthread_rwlock_init(&d->state_rw, NULL);
	if (getenv("NOTIFY_SOCKET")) {
		d->notify_socket = strdup(getenv("NOTIFY_SOCKET"));
		if (!d->notify_socket)
			goto oom;
	}
	d->main_thread = pthread_self();
	ue_mutex_init(&d->release_lock, UE_LOCK_RELEASE);
	ue_mutex_init(&d->fh_lock, UE_LOCK_FH_LIST);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&d->release_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	clock_gettime(CLOCK_REALTIME, &d->mount_time);

	ropts.max_events = opts.max_events;
	ropts.owner_only = opts.owner_only;
	eopts.max_per_process = opts.max_enablers;
	eopts.max_processes = opts.max_enabler_processes;
	r = ue_registry_new(&ropts, &d->reg);
	if (r < 0)
		goto fail_errno;
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	if (ncpus > UE_BUFFER_MAX_CPUS)
		ncpus = UE_BUFFER_MAX_CPUS;
	r = ue_buffer_new((unsigned int)ncpus, opts.buffer_kb << 10, true, &d->buf);
	if (r < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": cannot allocate %u x %zu KiB of trace buffer: %s\n",
			(unsigned int)ncpus, opts.buffer_kb, strerror(-r));
		goto out;
	}
	r = ue_tasks_new(&d->tasks);
	if (r < 0)
		goto fail_errno;
	r = ue_sessions_new(d);
	if (r < 0)
		goto fail_errno;
	r = ue_cmdlines_new(&d->cmdlines);
	if (r < 0)
		goto fail_errno;
	r = ue_counts_new(&d->counts);
	if (r < 0)
		goto fail_errno;
	ue_registry_set_counts(d->reg, d->counts);

	/* Everyone may need to reach the files (modes decide): allow_other when we can. */
	if (taking)
		all_opts = strdup(taken.fuse_opts);
	else if (asprintf(&all_opts, "default_permissions,fsname=usereventsd,subtype=usereventsd%s%s%s",
			  geteuid() == 0 ? ",allow_other" : "", fuse_opts[0] ? "," : "",
			  fuse_opts) < 0)
		all_opts = NULL;
	if (!all_opts)
		goto oom;
	d->fuse_opts = all_opts;
	if (fuse_opt_add_arg(&args, argv[0]) || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, all_opts) || (opts.debug && fuse_opt_add_arg(&args, "-d")))
		goto oom;
	d->se = fuse_session_new(&args, &ue_fs_ops, sizeof(ue_fs_ops), d);
	if (!d->se)
		goto out;	/* libfuse said which option it did not take */
	if (fuse_set_signal_handlers(d->se) != 0)
		goto out;
	signals = true;
	/*
	 * A private daemon (userevents run) goes with its tool, even one killed
	 * by SIGKILL: SIGTERM when the parent ends, through the handlers just
	 * set, so the mount is undone as on any SIGTERM.  A parent gone already
	 * sent nothing: look once the signal is armed.
	 */
	if (with_parent && (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent))
		goto out;
	if (taking) {
		/* The predecessor's connection: nothing is mounted, nothing unmounted here. */
		r = ue_upgrade_adopt_fuse(d, &taken);
		if (r < 0)
			goto fail_errno;
	} else {
		if (fuse_session_mount(d->se, mountpoint) != 0) {
			ue_mountpoint_failed(mountpoint);
			goto out;
		}
		mounted = true;
		/* FUSE_INIT kept for a successor (--upgrade). */
		r = ue_upgrade_io(d);
		if (r < 0)
			goto fail_errno;
	}
	/* Mounted: requests queue until the loop runs, so detaching now is safe. */
	sweeper.watch.foreground = opts.foreground;
	if (upgrade) {
		/* Detached too, but the command's status is the handover's (upgrade.c). */
		if (ue_upgrade_detach(&taken, opts.foreground) != 0)
			goto out;
	} else if (fuse_daemonize(opts.foreground || restart) != 0) {
		goto out;
	}

	/* Threads only now: fuse_daemonize() forks. */
	r = ue_enablers_new_opts(ue_registry_enabler_ops(), &eopts, &d->enablers);
	if (r < 0)
		goto fail_errno;
	ue_registry_set_enablers(d->reg, d->enablers);
	ue_registry_set_busy_hook(d->reg, ue_data_busy_hook, d);
	r = ue_pipe_start(d);
	if (r < 0)
		goto fail_errno;
	if (restart) {
		r = ue_upgrade_restore(d, &taken, mountpoint);
		if (r < 0) {
			fprintf(stderr, UE_DAEMON_NAME ": cannot restart from the checkpoint: %s\n",
				strerror(-r));
			/* The keeper lets the connection go: the next start mounts anew. */
			ue_keeper_let_go(d->notify_socket);
			_exit(EXIT_FAILURE);
		}
		fprintf(stderr, UE_DAEMON_NAME ": %s served again after a crash (restart %llu)\n",
			mountpoint, (unsigned long long)d->restarts);
		/* What the dead daemon's buffer held is gone: every reader is told, in-band. */
		ue_buffer_lost_unknown(d->buf);
		adopted = true;
		sweeper.restore_done_ms = RESTART_GRACE_MS;
	} else if (upgrade) {
		r = ue_upgrade_restore(d, &taken, mountpoint);
		ue_upgrade_answer(&taken, r);
		if (r < 0) {
			fprintf(stderr, UE_DAEMON_NAME ": cannot take the state of pid %d: %s\n",
				(int)taken.from_pid, strerror(-r));
			/*
			 * The predecessor serves on: nothing of what was restored is
			 * undone (a release would clear its programs' enable bits).
			 */
			_exit(EXIT_FAILURE);
		}
		/* The mount is ours now: unmounted at our end. */
		adopted = true;
	}
	/*
	 * A keeper holds the checkpoint: the one it gave back, the one a
	 * predecessor wrote, or a new one it is given below.
	 */
	if (d->notify_socket || taken.ckpt_fd >= 0 || restart) {
		r = ue_ckpt_new(d, restart ? kept_state : taken.ckpt_fd);
		if (r < 0)
			goto fail_errno;
		if (restart)
			kept_state = -1;
		else
			taken.ckpt_fd = -1;
		r = ue_ckpt_start(d);
		if (r < 0)
			goto fail_errno;
	}
	if (!restart)
		sweeper.restore_done_ms = 0;
	r = sweeper_start(&sweeper, d);
	if (r < 0)
		goto fail_errno;
	sweeping = true;
	r = ue_proc_events_start_taken(d->enablers, d->taken_procev, d->taken_seen, &d->procev);
	d->taken_procev = -1;
	d->taken_seen = NULL;
	if (r < 0)
		goto fail_errno;
	/* The native path of libuserevents is an offer: the daemon serves without it. */
	r = upgrade ? 0 : ue_native_start(&(struct ue_native_deps){ .reg = d->reg, .buf = d->buf,
						      .cmdlines = d->cmdlines,
						      .counts = d->counts },
			    mountpoint, &nat);
	if (r < 0)
		fprintf(stderr, UE_DAEMON_NAME ": native path off: %s\n", strerror(-r));
	else if (!upgrade)	/* before the FUSE loop runs: getxattr and the stats read it */
		__atomic_store_n(&d->native, nat, __ATOMIC_RELEASE);

	loop = fuse_loop_cfg_create();
	if (!loop)
		goto oom;
	fuse_loop_cfg_set_max_threads(loop, opts.max_threads);
	fuse_loop_cfg_set_idle_threads(loop, opts.max_threads < 4 ? opts.max_threads : 4);
	/* A successor may take the mount from now on (--upgrade). */
	r = ue_upgrade_listen(d);
	if (r < 0)
		fprintf(stderr, UE_DAEMON_NAME ": no upgrade without a restart: %s\n", strerror(-r));
	if (taking) {
		ue_taken_free(&taken);
		ue_upgrade_resend(d);
	}
	/* A new mount's connection and checkpoint go to the keeper; it serves from now on. */
	if (!taking)
		ue_keeper_store(d);
	ue_keeper_ready(d);
	for (;;) {
		r = fuse_session_loop_mt(d->se, loop);
		if (!ue_upgrade_requested(d))
			break;
		/* Handed over: the successor serves; nothing shared is touched on the way out. */
		if (ue_upgrade_give(d) == 0)
			_exit(EXIT_SUCCESS);
		fuse_session_reset(d->se);
	}
	/* A signal that ended the loop is returned as its positive number: a clean end. */
	status = r >= 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	/* Ended by choice: a keeper has nothing to start again. */
	ue_keeper_stopping(d);
	goto out;

oom:
	r = -ENOMEM;
fail_errno:
	fprintf(stderr, UE_DAEMON_NAME ": %s\n", strerror(-r));
out:
	ue_taken_free(&taken);
	if (d)
		ue_upgrade_stop_listening(d);
	if (sweeping)
		sweeper_stop(&sweeper);
	if (d)
		ue_ckpt_free(d);
	if (d) {
		/* It calls into the enablers: it stops before they go. */
		ue_proc_events_stop(d->procev);
		if (d->taken_procev >= 0)
			close(d->taken_procev);
		ue_proc_seen_free(d->taken_seen);
		ue_pipe_stop(d);
		if (signals)
			fuse_remove_signal_handlers(d->se);
		if (mounted)
			fuse_session_unmount(d->se);
		else if (adopted)
			ue_mountpoint_detach(mountpoint);
		nat = d->native;
		__atomic_store_n(&d->native, NULL, __ATOMIC_RELEASE);
		ue_native_stop(nat);
		ue_fs_cleanup(d);
		ue_sessions_free(d);
		/* Enablers hold event references: they go before the registry. */
		ue_enablers_free(d->enablers);
		ue_registry_free(d->reg);
		if (d->se)
			fuse_session_destroy(d->se);
		ue_buffer_free(d->buf);
		ue_tasks_free(d->tasks);
		ue_cmdlines_free(d->cmdlines);
		ue_counts_free(d->counts);
		ue_mutex_destroy(&d->release_lock);
		ue_mutex_destroy(&d->fh_lock);
		pthread_rwlock_destroy(&d->state_rw);
		free(d->notify_socket);
		pthread_cond_destroy(&d->release_cond);
		free(d);
	}
	if (remove_dir)
		rmdir(mountpoint);
	if (loop)
		fuse_loop_cfg_destroy(loop);
	fuse_opt_free_args(&args);
	free(all_opts);
	return status;
}
