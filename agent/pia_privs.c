/* pia_privs.c -- the agent never serves or writes as root unless told
 * to (see pia_agent.h).  Started as root (euid 0), once its sockets are
 * bound (a port below 1024 is allowed), it becomes --user (default
 * nobody): supplementary groups dropped, then the user's group, then
 * the user, and it checks it cannot become root again.  --user root
 * keeps root, said in the log.  A user that does not exist, or a
 * change that fails, stops it (status 1): it does not run as root by
 * accident.
 *
 * Why not "only outside systemd": the unit (pi-telemetry-agent.service)
 * starts it as a DynamicUser, never root, so this never runs there; and
 * systemd's marks ($INVOCATION_ID, $NOTIFY_SOCKET) are inherited by
 * whatever a unit starts, so they would not prove that privileges were
 * already dropped.  Not root, --user must name the user it runs as (a
 * mismatch is refused: it cannot switch, and silence would mislead).
 * Left out: chroot, capabilities, seccomp (the unit does those).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pia_agent.h"

/* Not root: --user, when given, must be who we are. */
static int check_not_root(const pia_settings *s)
{
    struct passwd *pw;

    if (s->user == NULL) {
        return 0;
    }
    pw = getpwnam(s->user);
    if (pw != NULL && pw->pw_uid == geteuid()) {
        return 0;
    }
    fprintf(stderr, "pi-telemetry-agent: --user %s: not started as root "
            "(running as uid %u), cannot switch\n", s->user,
            (unsigned)geteuid());
    return 1;
}

int pia_drop_privileges(const pia_settings *s)
{
    const char *name = s->user ? s->user : PIA_DEFAULT_USER;
    struct passwd *pw;

    if (geteuid() != 0) {
        return check_not_root(s);
    }
    errno = 0;
    pw = getpwnam(name);
    if (pw == NULL) {
        fprintf(stderr, "pi-telemetry-agent: started as root, and user %s: "
                "%s; give --user NAME (--user root keeps root)\n", name,
                errno ? strerror(errno) : "no such user");
        return 1;
    }
    if (pw->pw_uid == 0) {
        fprintf(stderr, "pi-telemetry-agent: running as root (--user %s)\n",
                name);
        return 0;
    }
    if (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0
        || setuid(pw->pw_uid) != 0) {
        fprintf(stderr, "pi-telemetry-agent: cannot become user %s: %s\n",
                name, strerror(errno));
        return 1;
    }
    if (setuid(0) == 0 || geteuid() == 0) {
        fprintf(stderr, "pi-telemetry-agent: user %s can become root "
                "again: not running\n", name);
        return 1;
    }
    fprintf(stderr, "pi-telemetry-agent: running as user %s (uid %u)\n",
            name, (unsigned)pw->pw_uid);
    return 0;
}
