/*
 * control.h - pisim's run-time control (-c FIFO): one command a line,
 *
 *   hang NAME      accept and read requests, answer nothing (telemetry too)
 *   answer NAME    answer again: held requests are served in order
 *   down NAME      close the listener and every connection (refused)
 *   up NAME        listen again
 *
 * NAME a node of the scenario, or `*` for every node.  The scenario's
 * down_at/up_at/hang_at/unhang_at happen once each at fixed times; this
 * is for a driver (bench/soak.sh) that decides when, as often as it
 * likes.  Parsed here (pure, tests/test_control.c); server.c applies a
 * command, pisim.c reads the FIFO.  Left out: heat (scenario heat events
 * do it), changes of speed or slots.
 */
#ifndef SIM_CONTROL_H
#define SIM_CONTROL_H

#include <stddef.h>

enum sim_ctl_verb { SIM_CTL_HANG, SIM_CTL_ANSWER, SIM_CTL_DOWN, SIM_CTL_UP };

struct sim_ctl {
    enum sim_ctl_verb verb;
    char node[32];            /* a node name (<= 31 bytes) or "*" */
};

/* Parses one line (without its newline; surrounding blanks allowed).
 * Returns 0, 1 for a blank line or a # comment (nothing to do), or -1
 * with a message in err naming what is wrong. */
int sim_ctl_parse(const char *line, struct sim_ctl *c, char *err,
                  size_t errlen);

/* The verb's word, as parsed ("hang", ...). */
const char *sim_ctl_word(enum sim_ctl_verb v);

#endif
