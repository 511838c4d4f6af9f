/*
 * skydeck-wait: what a job's driver leaves resident while the job's run script runs.
 *
 * The sh driver (agent/skydeck_agent_lib/driver.py) does the job's setup and then execs this:
 *
 *   skydeck-wait CANCELLED_FILE SHELL RUN_SCRIPT PYTHON AGENT BASE JOB
 *
 * It runs `SHELL RUN_SCRIPT` as its child (stderr joined to stdout, the job log), waits for it
 * and, unless the job was cancelled meanwhile (CANCELLED_FILE exists: its status is final
 * already), execs `PYTHON -E -S AGENT --base BASE _done JOB CODE run` without the job's marker
 * variable, exactly as the sh driver did. It exists because a dash driver keeps ~0.13 MB of
 * private memory per running job; this keeps a few pages: no libc, no heap, static.
 *
 * SIGTERM and SIGINT are blocked while waiting (the driver outlives its children and reports
 * their end, as the sh driver's trap did); the child gets the driver's mask and the default
 * dispositions. Exit codes mirror sh's `$?`: the child's status, or 128 + the signal that ended it.
 */
typedef unsigned long ul;

#if defined(__x86_64__)
enum { NR_write = 1, NR_rt_sigaction = 13, NR_rt_sigprocmask = 14, NR_clone = 56, NR_execve = 59,
       NR_exit = 60, NR_wait4 = 61, NR_faccessat = 269, NR_dup3 = 292 };
static long sys(long n, long a, long b, long c, long d) {
  register long r10 __asm__("r10") = d;
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return ret;
}
__asm__(".text\n.global _start\n_start:\n xor %rbp,%rbp\n mov %rsp,%rdi\n and $-16,%rsp\n call start_c\n hlt\n");
#elif defined(__aarch64__)
enum { NR_write = 64, NR_rt_sigaction = 134, NR_rt_sigprocmask = 135, NR_clone = 220, NR_execve = 221,
       NR_exit = 93, NR_wait4 = 260, NR_faccessat = 48, NR_dup3 = 24 };
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
       AT_FDCWD_ = -100, EINTR_ = 4 };

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

__attribute__((noreturn, used)) void start_c(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1);
  char **envp = argv + argc + 1;
  if (argc == 2 && starts_with(argv[1], "--probe") && argv[1][7] == 0) {
    sys(NR_write, 1, (long)"skydeck-wait 1\n", 15, 0);
    leave(0);
  }
  if (argc != 8) {
    say("usage: skydeck-wait CANCELLED_FILE SHELL RUN_SCRIPT PYTHON AGENT BASE JOB", "");
    leave(2);
  }
  char *cancelled = argv[1], *shell = argv[2], *script = argv[3];
  ul old = 0, block = (1UL << (SIGTERM_ - 1)) | (1UL << (SIGINT_ - 1));
  set_disposition(SIGCHLD_, 0); /* wait4 needs the default: an ignored SIGCHLD reaps at once */
  sys(NR_rt_sigprocmask, SIG_BLOCK_, (long)&block, (long)&old, 8);

  long pid = sys(NR_clone, SIGCHLD_, 0, 0, 0);
  if (pid < 0) {
    say("skydeck-wait: cannot start the run script: fork failed", "");
    leave(2);
  }
  if (pid == 0) {
    /* The driver hands TERM and INT over ignored (no gap before they are blocked here); the
       job's commands get the default dispositions, as under the sh driver's trap. */
    set_disposition(SIGTERM_, 0);
    set_disposition(SIGINT_, 0);
    sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)&old, 0, 8);
    sys(NR_dup3, 1, 2, 0, 0);
    char *child_argv[3] = { shell, script, 0 };
    sys(NR_execve, (long)shell, (long)child_argv, (long)envp, 0);
    say("skydeck: cannot run the job's shell ", shell);
    leave(127);
  }
  int status = 0;
  long got;
  do got = sys(NR_wait4, pid, (long)&status, 0, 0); while (got == -EINTR_);
  int code = got != pid ? 2 : (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f);

  if (sys(NR_faccessat, AT_FDCWD_, (long)cancelled, 0, 0) == 0) leave(143);
  /* A TERM that arrived while waiting is dropped (ignoring discards a pending signal), as the
     sh driver's trap swallowed it; the reporter then starts with the driver's own mask. */
  set_disposition(SIGTERM_, 1);
  set_disposition(SIGINT_, 1);
  set_disposition(SIGTERM_, 0);
  set_disposition(SIGINT_, 0);
  sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)&old, 0, 8);

  char **out = envp;  /* the marker goes: a late scan must not take the reporter for the job */
  for (char **e = envp; *e; e++) if (!starts_with(*e, "SKYDECK_JOB_MARKER=")) *out++ = *e;
  *out = 0;
  char num[4] = { 0 };
  if (code >= 100) { num[0] = '0' + code / 100; num[1] = '0' + code / 10 % 10; num[2] = '0' + code % 10; }
  else if (code >= 10) { num[0] = '0' + code / 10; num[1] = '0' + code % 10; }
  else num[0] = '0' + code;
  char *report[] = { argv[4], "-E", "-S", argv[5], "--base", argv[6], "_done", argv[7], num, "run", 0 };
  sys(NR_execve, (long)argv[4], (long)report, (long)envp, 0);
  say("skydeck-wait: cannot start the reporter ", argv[4]);
  leave(127);
}
