// Forked children with captured output (see child_pool.hpp). Output goes to anonymous memory files rather than
// pipes, so a child never blocks on a full pipe and the parent needs no poll loop: it waits, then reads.
#include "chorus/sweep/child_pool.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

struct Running {
  uint64_t task = 0;
  int out = -1, err = -1;
};

int memory_file(const char* name) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    throw Error("sweep", "memfd_create", std::strerror(errno));
  return fd;
}

std::string read_all(int fd) {
  std::string text;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

[[noreturn]] void be_child(const Running& r, const std::function<int(uint64_t)>& child) {
  ::dup2(r.out, STDOUT_FILENO);
  ::dup2(r.err, STDERR_FILENO);
  int status = 3;
  try {
    status = child(r.task);
  } catch (...) {
    std::fputs("error: unexpected exception in a sweep point\n", stderr);
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(status);  // no atexit handlers, no destructors: those belong to the parent
}

pid_t start(Running& r, const std::function<int(uint64_t)>& child) {
  r.out = memory_file("sweep-out");
  r.err = memory_file("sweep-err");
  std::cout.flush();
  std::fflush(nullptr);  // nothing buffered may be written twice, by parent and child
  const pid_t pid = ::fork();
  if (pid < 0)
    throw Error("sweep", "fork", std::strerror(errno));
  if (pid == 0)
    be_child(r, child);
  return pid;
}

}  // namespace

void run_in_children(std::span<const uint64_t> tasks, unsigned parallel, const std::function<int(uint64_t)>& child,
                     const std::function<void(uint64_t, const ChildOutput&)>& done) {
  std::map<pid_t, Running> running;
  size_t next = 0;
  while (next < tasks.size() || !running.empty()) {
    while (running.size() < std::max(parallel, 1u) && next < tasks.size()) {
      Running r{tasks[next++]};
      const pid_t pid = start(r, child);
      running.emplace(pid, r);
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      throw Error("sweep", "waitpid", std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end())
      continue;  // not one of ours
    ChildOutput output;
    output.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    output.out = read_all(it->second.out);
    output.err = read_all(it->second.err);
    const uint64_t task = it->second.task;
    running.erase(it);
    done(task, output);
  }
}

}  // namespace chorus
