/* A shared library for test_got: it imports getpid and getppid (calls
 * through its PLT) and takes getuid's address (a GLOB_DAT slot), and is
 * linked with full RELRO, as Debian builds libsimgrid. */
#include <sys/types.h>
#include <unistd.h>

int got_probe_pid(void) { return (int)getpid(); }
int got_probe_ppid(void) { return (int)getppid(); }

int got_probe_uid(void) {
  uid_t (*volatile fn)(void) = getuid; /* the address through a GOT slot */
  return (int)fn();
}
