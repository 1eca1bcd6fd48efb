/* pia_signal.c -- the agent's stop flag (see pia_agent.h).  SIGTERM and
 * SIGINT set it without SA_RESTART, so a wait returns EINTR and the loop
 * sees it; the loops also wake at least once a second, for a signal that
 * comes just before they wait.  SIGPIPE is ignored: a client that went
 * away is an error of one send, not the end of the agent.
 */
#include <string.h>

#include "pia_agent.h"

volatile sig_atomic_t pia_stop;

static void on_stop(int sig)
{
    (void)sig;
    pia_stop = 1;
}

void pia_set_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}
