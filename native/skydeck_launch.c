/*
 * skydeck-wait --launch: starts a batch of job drivers for the agent (launcher.py, launch_many).
 * Included by skydeck_wait.c (one translation unit, no libc).
 *
 * Why: a release of 64 jobs from Python forked intermediates of the agent (copy-on-write faults
 * on a 20 MB interpreter), posix_spawned each driver from there and read its /proc stat: about
 * 0.3 ms of CPU per job on top of the driver's own start, on the cores the jobs' shells need.
 * This process has a few pages, so a fork of it is cheap.
 *
 * fd 0: records, each "%08x" (its length) then NUL-terminated strings: key, log path, argv...,
 * an empty string, env... . For each, a child in its own session with /dev/null as stdin and
 * the log (appended, created 0600) as stdout and stderr execs argv[0]; fd 1 gets
 * "KEY PID START\n" (START: field 22 of /proc/PID/stat, "-" if unreadable). A child that cannot
 * open its log or /dev/null, or exec, writes "KEY 0 E<errno> log|null|exec\n" instead, which wins
 * over its PID line; a failed fork is answered "KEY 0 E<errno> fork\n".
 * Ends at the end of fd 0; the children are then re-parented away (none is the agent's).
 */
enum { LAUNCH_MAX = 1 << 22, LAUNCH_STRINGS = 1 << 16, KEY_MAX = 64, RESULT_FD = 3 };
static char launch_buf[LAUNCH_MAX];
static char *launch_ptrs[LAUNCH_STRINGS + 2];

static int read_full(char *p, long n) {
  while (n > 0) {
    long got = sys(NR_read, 0, (long)p, n, 0);
    if (got == -EINTR_) continue;
    if (got <= 0) return 0;
    p += got;
    n -= got;
  }
  return 1;
}

static char *put_num(char *p, unsigned long v) {
  char d[24];
  int n = 0;
  do d[n++] = '0' + v % 10; while ((v /= 10) > 0);
  while (n) *p++ = d[--n];
  return p;
}

/* One result line, in one write (atomic on a pipe). */
static void result(long fd, const char *key, long pid, const char *tail) {
  char line[len(key) + len(tail) + 48], *p = line;
  for (const char *k = key; *k; k++) *p++ = *k;
  *p++ = ' ';
  p = put_num(p, pid);
  *p++ = ' ';
  for (const char *t = tail; *t; t++) *p++ = *t;
  *p++ = '\n';
  sys(NR_write, fd, (long)line, p - line, 0);
}

static __attribute__((noreturn)) void child_failed(const char *key, long err, const char *what) {
  char tail[48], *p = tail;
  *p++ = 'E';
  p = put_num(p, (unsigned long)-err);
  *p++ = ' ';
  while (*what) *p++ = *what++;
  *p = 0;
  result(RESULT_FD, key, 0, tail);
  leave(127);
}

static __attribute__((noreturn)) void launch_child(char *key, char *log, char **argv, char **envp) {
  sys(NR_setsid, 0, 0, 0, 0);
  sys(NR_dup3, 1, RESULT_FD, O_CLOEXEC_, 0);  /* the result pipe, closed by a successful exec */
  long fd = sys(NR_openat, AT_FDCWD_, (long)log, O_WRONLY_ | O_APPEND_ | O_CREAT_ | O_CLOEXEC_, 0600);
  if (fd < 0) child_failed(key, fd, "log");
  long null = sys(NR_openat, AT_FDCWD_, (long)"/dev/null", O_RDONLY_ | O_CLOEXEC_, 0);
  if (null < 0) child_failed(key, null, "null");
  sys(NR_dup3, null, 0, 0, 0);
  sys(NR_dup3, fd, 1, 0, 0);
  sys(NR_dup3, fd, 2, 0, 0);
  long err = sys(NR_execve, (long)argv[0], (long)argv, (long)envp, 0);
  child_failed(key, err, "exec");
}

/* START of a just-forked child: field 22 of its stat, after the last ')' of its name. */
static void start_of(long pid, char *out) {
  char path[40], *p = path, data[1024];
  for (const char *s = "/proc/"; *s; s++) *p++ = *s;
  p = put_num(p, (unsigned long)pid);
  for (const char *s = "/stat"; (*p = *s); s++) p++;
  out[0] = '-';
  out[1] = 0;
  long fd = sys(NR_openat, AT_FDCWD_, (long)path, O_RDONLY_ | O_CLOEXEC_, 0);
  if (fd < 0) return;
  long n = sys(NR_read, fd, (long)data, sizeof data - 1, 0);
  sys(NR_close, fd, 0, 0, 0);
  if (n <= 0) return;
  data[n] = 0;
  char *q = 0;
  for (long i = 0; i < n; i++) if (data[i] == ')') q = data + i;
  if (!q) return;
  int field = 2;
  for (q++; *q && field < 22; q++) if (*q == ' ') field++;
  int k = 0;
  while (*q >= '0' && *q <= '9' && k < 22) out[k++] = *q++;
  if (k) out[k] = 0;
}

static __attribute__((noreturn)) void launch(void) {
  /* The jobs get no descriptor the agent inherited (Linux 5.9+; before, the agent's own are
     close-on-exec anyway), no blocked signal, and an exit status each (an ignored SIGCHLD would
     reap a child before its stat is read). A signal the agent was started ignoring stays
     ignored, as with the forked intermediates; the waiter resets TERM and INT for the job. */
  sys(NR_close_range, 3, ~0UL, 0, 0);
  ul none = 0;
  sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)&none, 0, 8);
  set_disposition(SIGCHLD_, 0);
  for (;;) {
    char head[8];
    long got = sys(NR_read, 0, (long)head, 8, 0);
    while (got == -EINTR_) got = sys(NR_read, 0, (long)head, 8, 0);
    if (got == 0) leave(0);
    if (got < 0 || (got < 8 && !read_full(head + got, 8 - got))) leave(2);
    unsigned long n = 0;
    for (int i = 0; i < 8; i++) {
      char c = head[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) leave(2);
      n = n * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (n < 4 || n > LAUNCH_MAX || !read_full(launch_buf, (long)n) || launch_buf[n - 1]) leave(2);
    /* key, log, argv up to an empty string, then env: pointers into the buffer. */
    char *key = launch_buf, **ptrs = launch_ptrs, **envp = 0, *log = 0;
    if (len(key) > KEY_MAX) leave(2);  /* its answer line is built on the stack */
    long count = 0;
    for (char *s = launch_buf + len(key) + 1; s < launch_buf + n; s += len(s) + 1) {
      if (!log) { log = s; continue; }
      if (!*s && !envp) { ptrs[count++] = 0; envp = ptrs + count; continue; }
      if (count >= LAUNCH_STRINGS) leave(2);
      ptrs[count++] = s;
    }
    ptrs[count] = 0;
    if (!log || !envp || !ptrs[0]) leave(2);
    long pid = sys(NR_clone, SIGCHLD_, 0, 0, 0);
    if (pid == 0) launch_child(key, log, ptrs, envp);
    char start[24];
    if (pid < 0) {
      char tail[32] = "E", *p = put_num(tail + 1, (unsigned long)-pid);
      for (const char *s = " fork"; (*p = *s); s++) p++;
      result(1, key, 0, tail);
      continue;
    }
    start_of(pid, start);
    result(1, key, pid, start);
  }
}
