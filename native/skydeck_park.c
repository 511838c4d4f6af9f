/*
 * skydeck-wait --driver, parked (agent/skydeck_agent_lib/park.py): started ahead for a queued
 * job, it waits on the job's FIFO in <base>/parked/ before it does anything of the job. Included
 * by skydeck_wait.c after skydeck_launch.c (one translation unit, no libc).
 *
 * First it appends " PID START\n" to FIFO.info (made by the parker: "INODE DIGEST TOKEN", what
 * the driver was made for; TOKEN is also in its _SKYDECK_PARK_TOKEN), then it opens the FIFO:
 * so a release that finds a reader finds who it is, without waiting for the parker to hear back
 * from the launcher.
 *
 * Why: a release of 64 queued jobs otherwise forks and execs a driver per job on the cores the
 * jobs' shells need (~0.4 ms of CPU each). Parked, the release is one byte per job.
 *
 * A 'g' read from the FIFO: go on as a driver. Anything else ends it at once, without a report
 * (the job is still queued; the agent starts it otherwise if it ever runs): the FIFO's writer
 * closing without a byte (the agent dismissing it), the FIFO gone or replaced (looked at every
 * PARK_CHECK_S seconds: its base dir removed, a sweep). The agent writes its byte before it
 * removes the FIFO, so a byte is looked for once more before leaving on a missing FIFO.
 */
enum { PARK_CHECK_S = 5, O_NONBLOCK_ = 04000, O_RDWR_ = 02, POLLIN_ = 1 };

#if defined(__x86_64__)
enum { NR_fstat = 5, NR_ppoll = 271, NR_newfstatat = 262 };
#elif defined(__aarch64__)
enum { NR_fstat = 80, NR_ppoll = 73, NR_newfstatat = 79 };
#endif

struct pollfd_ { int fd; short events, revents; };
struct timespec_ { long sec, nsec; };

/* st_dev and st_ino: the first two 8-byte fields of struct stat on both architectures. */
static int same_file(const char *path, long fd) {
  unsigned long a[32], b[32];
  if (sys(NR_newfstatat, AT_FDCWD_, (long)path, (long)a, 0) < 0) return 0;
  if (sys(NR_fstat, fd, (long)b, 0, 0) < 0) return 0;
  return a[0] == b[0] && a[1] == b[1];
}

/* 1: the agent's go; 0: anything else (EOF, another byte, nothing there yet). */
static int got_go(long fd) {
  char c = 0;
  long n = sys(NR_read, fd, (long)&c, 1, 0);
  return n == 1 && c == 'g';
}

/* 1 when the info file open at fd (offset 0) was made for this driver: its third word is the
   token this driver was started with. Another parking of the same job (this one dismissed, the
   job parked again) has a new token: a slow driver of the first never joins the second. */
static int ours(long fd, const char *token) {
  char buf[256];
  long n = sys(NR_read, fd, (long)buf, sizeof buf - 1, 0);
  if (n <= 0 || !*token) return 0;
  buf[n] = 0;
  char *w = buf;
  for (int spaces = 0; *w && spaces < 2; w++) if (*w == ' ') spaces++;
  const char *t = token;
  while (*t && *w == *t) { w++; t++; }
  return !*t && (*w == 0 || *w == ' ' || *w == '\n');
}

/* Returns once released; leaves (0) otherwise. Nothing of the job has been touched yet, so while
   parked TERM and INT end it as they would any process (old: the mask it was started with;
   blocked again once released), and it holds no directory of anyone's (cwd: /). */
static void park(const char *fifo, const char *token, ul *old) {
  char path[len(fifo) + 8], line[64], *p = line;
  sys(NR_chdir, (long)"/", 0, 0, 0);
  long info = sys(NR_openat, AT_FDCWD_, (long)join(path, fifo, ".info"), O_RDWR_ | O_APPEND_ | O_CLOEXEC_, 0);
  if (info < 0) leave(0);  /* dismissed already */
  if (!ours(info, token)) leave(0);
  *p++ = ' ';
  p = put_num(p, (unsigned long)sys(NR_getpid, 0, 0, 0, 0));
  *p++ = ' ';
  start_of(sys(NR_getpid, 0, 0, 0, 0), p);
  while (*p) p++;
  *p++ = '\n';
  long wrote = sys(NR_write, info, (long)line, p - line, 0);
  sys(NR_close, info, 0, 0, 0);
  if (wrote != p - line) leave(0);
  long fd = sys(NR_openat, AT_FDCWD_, (long)fifo, O_RDONLY_ | O_NONBLOCK_ | O_CLOEXEC_, 0);
  if (fd < 0) leave(0);  /* dismissed before it got here */
  /* Still ours now that it holds the FIFO (parked again meanwhile: another FIFO, another token). */
  info = sys(NR_openat, AT_FDCWD_, (long)path, O_RDONLY_ | O_CLOEXEC_, 0);
  int still = info >= 0 && ours(info, token);
  if (info >= 0) sys(NR_close, info, 0, 0, 0);
  if (!still) leave(0);
  ul blocked = 0;
  sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)old, (long)&blocked, 8);
  for (;;) {
    struct pollfd_ pfd = { (int)fd, POLLIN_, 0 };
    struct timespec_ t = { PARK_CHECK_S, 0 };
    /* Linux reports no hang-up on a FIFO that never had a writer: this sleeps until one. */
    long r = sys(NR_ppoll, (long)&pfd, 1, (long)&t, 0);
    if (r == -EINTR_) continue;
    if (r != 0 || !same_file(fifo, fd)) {  /* a byte, a hang-up (dismissed), gone */
      if (got_go(fd)) break;
      leave(0);
    }
  }
  sys(NR_rt_sigprocmask, SIG_SETMASK_, (long)&blocked, 0, 8);
  sys(NR_close, fd, 0, 0, 0);
}
