/*
 * skydeck-wait: what a job's driver leaves resident while the job's run script runs.
 *
 Two ways in (agent/skydeck_agent_lib/driver.py), and --launch (skydeck_launch.c), which starts them:
 *
 *   skydeck-wait CANCELLED_FILE SHELL RUN_SCRIPT PYTHON AGENT BASE JOB
 *     exec'd by the sh driver once a job's setup is done;
 *   skydeck-wait --driver skydeck-job-N
 *     spawned as the whole driver of a job without setup: it does what the sh driver's prelude
 *     does (its notices to driver.err, the client's umask, joining the job's cgroup, entering the
 *     workdir), reading the same _SKYDECK_* variables, which the job's commands never see;
 *     with _SKYDECK_PARK set, started ahead for a queued job, it first waits to be released
 *     (skydeck_park.c).
 *
 * With a cgroup v2 job cgroup, --driver starts the child straight inside it (clone3 with
 * CLONE_INTO_CGROUP) and stays where it was spawned: moving a process between cgroups waits for
 * an RCU grace period under a global lock (1-3 ms each, one at a time), which made a release of
 * 64 jobs wait ~70 ms for the moves alone. Elsewhere (cgroup v1, a kernel before 5.7, a seccomp
 * filter refusing clone3) it moves itself in first, as the sh driver does. Being outside, it is
 * killed by the agent along with the cgroup (SIGKILL); its child checks the cancelled flag once
 * more before it runs anything, for a cancel that came before the child was in the cgroup.
 *
 * It runs `SHELL RUN_SCRIPT` as its child (stderr joined to stdout, the job log), waits for it
 * and, unless the job was cancelled meanwhile (CANCELLED_FILE exists: its status is final
 * already), execs `PYTHON -E -S AGENT --base BASE _done JOB CODE PHASE` without the job's
 * marker variable, exactly as the sh driver does. It exists because a dash driver keeps ~0.13 MB
 * of private memory per running job and costs an exec per start; this keeps a few pages: no
 * libc, no heap, static.
 *
 * SIGTERM and SIGINT are blocked while waiting (the driver outlives its children and reports
 * their end, as the sh driver's trap did); the child gets the driver's mask and the default
 * dispositions. Exit codes mirror sh's `$?`: the child's status, or 128 + the signal that ended it.
 */
typedef unsigned long ul;

#if defined(__x86_64__)
enum { NR_read = 0, NR_write = 1, NR_close = 3, NR_rt_sigaction = 13, NR_rt_sigprocmask = 14, NR_getpid = 39,
       NR_clone = 56, NR_execve = 59, NR_exit = 60, NR_wait4 = 61, NR_chdir = 80, NR_umask = 95, NR_setsid = 112,
       NR_openat = 257, NR_faccessat = 269, NR_dup3 = 292, NR_clone3 = 435, NR_close_range = 436 };
static long sys(long n, long a, long b, long c, long d) {
  register long r10 __asm__("r10") = d;
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return ret;
}
__asm__(".text\n.global _start\n_start:\n xor %rbp,%rbp\n mov %rsp,%rdi\n and $-16,%rsp\n call start_c\n hlt\n");
#elif defined(__aarch64__)
enum { NR_read = 63, NR_write = 64, NR_close = 57, NR_rt_sigaction = 134, NR_rt_sigprocmask = 135, NR_getpid = 172,
       NR_clone = 220, NR_execve = 221, NR_exit = 93, NR_wait4 = 260, NR_chdir = 49, NR_umask = 166, NR_setsid = 157,
       NR_openat = 56, NR_faccessat = 48, NR_dup3 = 24, NR_clone3 = 435, NR_close_range = 436 };
static long sys(long n, long a, long b, long c, long d) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
__asm__(".text\n.global _start\n_start:\n mov x0, sp\n bl start_c\n");
#else
#error "skydeck-wait: unsupported architecture"
#endif

enum { SIGINT_ = 2, SIGTERM_ = 15, SIGCHLD_ = 17, SIG_BLOCK_ = 0, SIG_SETMASK_ = 2,
       AT_FDCWD_ = -100, EINTR_ = 4, EAGAIN_ = 11, ENOMEM_ = 12, O_RDONLY_ = 0, O_WRONLY_ = 01,
       O_CREAT_ = 0100, O_APPEND_ = 02000, O_CLOEXEC_ = 02000000 };
#if defined(__aarch64__)
enum { O_DIRECTORY_ = 040000 };
#else
enum { O_DIRECTORY_ = 0200000 };
#endif
#define CLONE_INTO_CGROUP_ 0x200000000ULL

/* The kernel's struct clone_args up to its cgroup field (CLONE_ARGS_SIZE_VER2). */
struct clone_args_ { unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
                     tls, set_tid, set_tid_size, cgroup; };

struct ksigaction { ul handler, flags, restorer, mask; };

/* gcc may emit calls to these for struct copies; there is no libc to provide them. */
void *memset(void *d, int c, ul n) { unsigned char *p = d; while (n--) *p++ = (unsigned char)c; return d; }
void *memcpy(void *d, const void *s, ul n) {
  unsigned char *p = d; const unsigned char *q = s; while (n--) *p++ = *q++; return d;
}

static __attribute__((noreturn)) void leave(int code) {
  for (;;) sys(NR_exit, code, 0, 0, 0);
}

static ul len(const char *s) { ul n = 0; while (s[n]) n++; return n; }

static void say(const char *a, const char *b) {
  sys(NR_write, 2, (long)a, (long)len(a), 0);
  sys(NR_write, 2, (long)b, (long)len(b), 0);
  sys(NR_write, 2, (long)"\n", 1, 0);
}

static void set_disposition(int sig, ul handler) {
  struct ksigaction sa = { handler, 0, 0, 0 };
  sys(NR_rt_sigaction, sig, (long)&sa, 0, 8);
}

static int starts_with(const char *s, const char *prefix) {
  while (*prefix) if (*s++ != *prefix++) return 0;
  return 1;
}

static char *join(char *buf, const char *a, const char *b) {
  char *p = buf;
  while (*a) *p++ = *a++;
  while (*b) *p++ = *b++;
  *p = 0;
  return buf;
}

/* --driver: the job dir's driver.err, opened only when there is something for it (a notice of
   the driver's own, or the reporter's stderr at the job's end). Until then stderr is the job
   log, which the driver never writes to: so a job start creates no file for it. *err is the
   path until then, 0 after (and in the exec'd mode, whose stderr the sh driver set). No global:
   a data page would be one more private page per running job. */
static void to_driver_err(char **err) {
  if (!*err) return;
  long fd = sys(NR_openat, AT_FDCWD_, (long)*err, O_WRONLY_ | O_CREAT_ | O_APPEND_ | O_CLOEXEC_, 0600);
  *err = 0;
  if (fd < 0) return;  /* then the job log takes the notice: better than losing it */
  sys(NR_dup3, fd, 2, 0, 0);
  sys(NR_close, fd, 0, 0, 0);
}

/* Moves this process into the cgroup at path cg; 1 when done. */
static int join_cgroup(const char *cg) {
  char procs[len(cg) + 16], num[24], digits[24];
  long pid = sys(NR_getpid, 0, 0, 0, 0), n = 0, m = 0;
  do digits[n++] = '0' + pid % 10; while ((pid /= 10) > 0);
  while (m < n) { num[m] = digits[n - 1 - m]; m++; }
  num[n++] = '\n';
  long fd = sys(NR_openat, AT_FDCWD_, (long)join(procs, cg, "/cgroup.procs"), O_WRONLY_ | O_CLOEXEC_, 0);
  if (fd < 0) return 0;
  int ok = sys(NR_write, fd, (long)num, n, 0) == n;
  sys(NR_close, fd, 0, 0, 0);
  return ok;
}

/* Runs `shell script` as a child with the driver's mask and default TERM/INT; its status as sh
   reports it, or -1 when the child could not be put in the job's cgroup. cg/cgfd: the job's
   cgroup and a descriptor of it (-1: none, or this process is in it already). */
static int run_and_wait(char *shell, char *script, char *cancelled, char **envp, ul *old, char **err,
                        const char *cg, long cgfd) {
  long pid = -1;
  if (cgfd >= 0) {
    struct clone_args_ a;
    memset(&a, 0, sizeof a);
    a.flags = CLONE_INTO_CGROUP_;
    a.exit_signal = SIGCHLD_;
    a.cgroup = (unsigned long long)cgfd;
    pid = sys(NR_clone3, (long)&a, sizeof a, 0, 0);
    if (pid < 0 && pid != -EAGAIN_ && pid != -ENOMEM_) {  /* not here: move in, then fork */
      if (!join_cgroup(cg)) return -1;
      cgfd = -1;
    }
  }
  if (cgfd < 0) pid = sys(NR_clone, SIGCHLD_, 0, 0, 0);
  else if (pid > 0) sys(NR_close, cgfd, 0, 0, 0);  /* not held for the job's whole life */
  if (pid < 0) {
    to_driver_err(err);
    say("skydeck-wait: cannot start the run script: fork failed", "");
    leave(2);
  }
  if (pid == 0) {
    /* TERM and INT come ignored from the sh driver (no gap before they were blocked here); the
       job's commands get the default dispositions, as under the sh driver's trap. */
    set_disposition(SIGTERM_, 0);
    set_disposition(SIGINT_, 0);
    sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)old, 0, 8);
    sys(NR_dup3, 1, 2, 0, 0);
    /* A cancel that came before this child was in the cgroup (its SIGKILL found the cgroup
       empty) wrote the flag first: nothing of the job starts. */
    if (sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) == 0) leave(143);
    char *child_argv[3] = { shell, script, 0 };
    sys(NR_execve, (long)shell, (long)child_argv, (long)envp, 0);
    say("skydeck: cannot run the job's shell ", shell);
    leave(127);
  }
  int status = 0;
  long got;
  do got = sys(NR_wait4, pid, (long)&status, 0, 0); while (got == -EINTR_);
  return got != pid ? 2 : (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f);
}

struct job { char *py, *agent, *base, *id, *err; };

static __attribute__((noreturn)) void report(struct job *j, char **envp, int code, char *phase, ul *old) {
  to_driver_err(&j->err);
  /* A TERM that arrived while waiting is dropped (ignoring discards a pending signal), as the
     sh driver's trap swallowed it; the reporter then starts with the driver's own mask. */
  set_disposition(SIGTERM_, 1);
  set_disposition(SIGINT_, 1);
  set_disposition(SIGTERM_, 0);
  set_disposition(SIGINT_, 0);
  sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)old, 0, 8);
  char **out = envp;  /* the marker goes: a late scan must not take the reporter for the job */
  for (char **e = envp; *e; e++) if (!starts_with(*e, "SKYDECK_JOB_MARKER=")) *out++ = *e;
  *out = 0;
  char num[4] = { 0 };
  if (code >= 100) { num[0] = '0' + code / 100; num[1] = '0' + code / 10 % 10; num[2] = '0' + code % 10; }
  else if (code >= 10) { num[0] = '0' + code / 10; num[1] = '0' + code % 10; }
  else num[0] = '0' + code;
  char *argv[] = { j->py, "-E", "-S", j->agent, "--base", j->base, "_done", j->id, num, phase, 0 };
  sys(NR_execve, (long)j->py, (long)argv, (long)envp, 0);
  say("skydeck-wait: cannot start the reporter ", j->py);
  leave(127);
}

static __attribute__((noreturn)) void cgroup_failed(struct job *j, char **envp, char *cg, char *cancelled, ul *old) {
  to_driver_err(&j->err);
  say("skydeck-wait: cannot join the job's cgroup ", cg);
  if (sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) == 0) leave(143);
  report(j, envp, 1, "cgroup", old);
}

static void park(const char *fifo, const char *token, ul *old);  /* skydeck_park.c */

/* The driver's variables (driver.py job_env, park.py), taken out of the environment the job gets. */
static const char *const VARS[] = { "_SKYDECK_PY=", "_SKYDECK_AGENT=", "_SKYDECK_BASE=", "_SKYDECK_JOB=",
  "_SKYDECK_DIR=", "_SKYDECK_SHELL=", "_SKYDECK_CWD=", "_SKYDECK_CGROUP=", "_SKYDECK_UMASK=",
  "_SKYDECK_SETUP_UNSET=", "_SKYDECK_WAIT=", "_SKYDECK_PARK=", "_SKYDECK_PARK_TOKEN=" };
enum { V_PY, V_AGENT, V_BASE, V_JOB, V_DIR, V_SHELL, V_CWD, V_CGROUP, V_UMASK, V_PARK = 11, V_PARK_TOKEN, V_COUNT };

static __attribute__((noreturn)) void drive(char **envp, ul *old) {
  char *v[V_COUNT] = { 0 };
  char **out = envp;
  for (char **e = envp; *e; e++) {
    int k = 0;
    while (k < V_COUNT && !starts_with(*e, VARS[k])) k++;
    if (k < V_COUNT) v[k] = *e + len(VARS[k]);
    else *out++ = *e;
  }
  *out = 0;
  for (int k = V_PY; k <= V_CWD; k++) {
    if (!v[k] || !*v[k]) {
      say("skydeck-wait: --driver is missing ", VARS[k]);
      leave(2);
    }
  }
  if (v[V_PARK] && *v[V_PARK]) park(v[V_PARK], v[V_PARK_TOKEN] ? v[V_PARK_TOKEN] : "", old);  /* queued still: wait for the release */
  struct job j = { v[V_PY], v[V_AGENT], v[V_BASE], v[V_JOB], 0 };
  char *dir = v[V_DIR];
  char err[len(dir) + 16], cancelled[len(dir) + 16], script[len(dir) + 16];
  join(cancelled, dir, "/cancelled");
  j.err = join(err, dir, "/driver.err");
  if (v[V_UMASK] && *v[V_UMASK]) {
    long m = 0;
    for (char *c = v[V_UMASK]; *c >= '0' && *c <= '7'; c++) m = m * 8 + (*c - '0');
    sys(NR_umask, m & 0777, 0, 0, 0);
  }
  char *cg = v[V_CGROUP] && *v[V_CGROUP] ? v[V_CGROUP] : 0;
  long cgfd = cg ? sys(NR_openat, AT_FDCWD_, (long)cg, O_RDONLY_ | O_DIRECTORY_ | O_CLOEXEC_, 0) : -1;
  if (cg && cgfd < 0 && !join_cgroup(cg)) cgroup_failed(&j, envp, cg, cancelled, old);
  if (sys(NR_chdir, (long)v[V_CWD], 0, 0, 0) < 0) {
    sys(NR_dup3, 1, 2, 0, 0);  /* said in the job's log, as the sh driver's `cd 2>&1` does */
    say("skydeck: cannot enter the workdir ", v[V_CWD]);
    if (sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) == 0) leave(143);
    report(&j, envp, 1, "workdir", old);
  }
  int code = 0;
  if (sys(NR_faccessat, AT_FDCWD_, (long)join(script, dir, "/run.sh"), 0, 0) == 0 &&
      sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) != 0)
    code = run_and_wait(v[V_SHELL], script, cancelled, envp, old, &j.err, cg, cgfd);
  if (code < 0) cgroup_failed(&j, envp, cg, cancelled, old);
  if (sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) == 0) leave(143);
  report(&j, envp, code, "run", old);
}

#include "skydeck_launch.c"
#include "skydeck_park.c"

__attribute__((noreturn, used)) void start_c(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1);
  char **envp = argv + argc + 1;
  if (argc == 2 && starts_with(argv[1], "--probe") && argv[1][7] == 0) {
    sys(NR_write, 1, (long)"skydeck-wait 5\n", 15, 0);
    leave(0);
  }
  if (argc == 2 && starts_with(argv[1], "--launch") && argv[1][8] == 0) launch();  /* before the driver's signal set-up below */
  ul old = 0, block = (1UL << (SIGTERM_ - 1)) | (1UL << (SIGINT_ - 1));
  set_disposition(SIGCHLD_, 0); /* wait4 needs the default: an ignored SIGCHLD reaps at once */
  sys(NR_rt_sigprocmask, SIG_BLOCK_, (long)&block, (long)&old, 8);
  if (argc == 3 && starts_with(argv[1], "--driver") && argv[1][8] == 0) drive(envp, &old);
  if (argc != 8) {
    say("usage: skydeck-wait CANCELLED_FILE SHELL RUN_SCRIPT PYTHON AGENT BASE JOB | --driver NAME | --launch", "");
    leave(2);
  }
  struct job j = { argv[4], argv[5], argv[6], argv[7], 0 };
  int code = run_and_wait(argv[2], argv[3], argv[1], envp, &old, &j.err, 0, -1);
  if (sys(NR_faccessat, AT_FDCWD_, (long)argv[1], 0, 0) == 0) leave(143);
  report(&j, envp, code, "run", &old);
}
