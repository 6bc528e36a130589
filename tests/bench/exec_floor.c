/* sortie-exec-floor [N] [ROUNDS]: how long this machine takes to exec N `sleep 60` processes,
 * the floor under the local supervisor's fan-out (docs/benchmarks.md, "The 5 ms target met").
 * "one after another": vfork + execve per process, each waited for, as the supervisor does.
 * "all, then collected": fork them all, then read each one's close-on-exec pipe to its end.
 * Prints the median of ROUNDS rounds of each; the processes are killed after every round. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Kept apart from its caller so that no caller variable lives across vfork(). */
__attribute__((noinline)) static pid_t vfork_sleep(char** argv) {
  const pid_t pid = vfork();
  if (pid == 0) {
    execve("/usr/bin/sleep", argv, environ);
    _exit(127);
  }
  return pid;
}

/* Execs n sleeps; returns the milliseconds until the last one has exec'd. */
static double round_ms(int n, int together, pid_t* pids, int* reports) {
  char* argv[] = {"sleep", "60", NULL};
  const double start = now_ms();
  for (int i = 0; i < n; ++i) {
    if (!together) {
      pids[i] = vfork_sleep(argv);
      continue;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) exit(1);
    pids[i] = fork();
    if (pids[i] == 0) {
      execve("/usr/bin/sleep", argv, environ);
      _exit(127);
    }
    close(fds[1]);
    reports[i] = fds[0];
  }
  for (int i = 0; together && i < n; ++i) {
    char byte;
    while (read(reports[i], &byte, 1) > 0) {
    }
    close(reports[i]);
  }
  const double elapsed = now_ms() - start;
  for (int i = 0; i < n; ++i) kill(pids[i], SIGKILL);
  for (int i = 0; i < n; ++i) waitpid(pids[i], NULL, 0);
  return elapsed;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1 || n > 4096 || rounds < 1 || rounds > 100) {
    fprintf(stderr, "usage: sortie-exec-floor [N 1..4096] [ROUNDS 1..100]\n");
    return 2;
  }
  pid_t* pids = calloc((size_t)n, sizeof *pids);
  int* reports = calloc((size_t)n, sizeof *reports);
  double* times = calloc((size_t)rounds, sizeof *times);
  const char* labels[] = {"one after another (vfork)", "all, then collected (fork)"};
  for (int together = 0; together < 2; ++together) {
    for (int r = 0; r < rounds; ++r) times[r] = round_ms(n, together, pids, reports);
    qsort(times, (size_t)rounds, sizeof *times, by_value);
    printf("| %d `sleep`s exec'd, %s | %.1f ms | a bare static C program |\n", n, labels[together],
           times[rounds / 2]);
  }
  free(pids);
  free(reports);
  free(times);
  return 0;
}
