/*
 * control.c - see control.h.  Pure: no I/O.
 */
#include <stdio.h>
#include <string.h>
#include "control.h"

static const char *const words[] = { "hang", "answer", "down", "up" };

const char *sim_ctl_word(enum sim_ctl_verb v)
{
    return words[v];
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

/* A node name as the scenario allows it: A-Z a-z 0-9 - _ . */
static int name_char(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')
           || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_'
           || ch == '.';
}

int sim_ctl_parse(const char *line, struct sim_ctl *c, char *err,
                  size_t errlen)
{
    const char *p = line, *w, *n;
    size_t wl, nl, i;

    while (is_blank(*p))
        p++;
    if (*p == '\0' || *p == '#')
        return 1;
    for (w = p; *p && !is_blank(*p); p++)
        ;
    wl = (size_t)(p - w);
    while (is_blank(*p))
        p++;
    for (n = p; *p && !is_blank(*p); p++)
        ;
    nl = (size_t)(p - n);
    while (is_blank(*p))
        p++;
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i]) == wl && strncmp(w, words[i], wl) == 0)
            break;
    if (i == sizeof(words) / sizeof(words[0])) {
        snprintf(err, errlen, "'%.*s': not a command (hang, answer, down,"
                 " up)", (int)(wl > 40 ? 40 : wl), w);
        return -1;
    }
    if (nl == 0 || *p != '\0') {
        snprintf(err, errlen, "%s: wants one node name (or *)", words[i]);
        return -1;
    }
    if (nl >= sizeof(c->node)) {
        snprintf(err, errlen, "%s: node name longer than %zu bytes",
                 words[i], sizeof(c->node) - 1);
        return -1;
    }
    if (!(nl == 1 && *n == '*'))
        for (wl = 0; wl < nl; wl++)
            if (!name_char(n[wl])) {
                snprintf(err, errlen, "%s: '%.*s' is not a node name",
                         words[i], (int)nl, n);
                return -1;
            }
    c->verb = (enum sim_ctl_verb)i;
    memcpy(c->node, n, nl);
    c->node[nl] = '\0';
    return 0;
}
